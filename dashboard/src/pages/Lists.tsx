/**
 * Lists (issue 34): choose or drop a CSV or NDJSON file, see which columns will be read before
 * submitting, follow the job with a live progress bar, download the results. The columns shown are
 * the server's own rule (src/domain/jobs/columns.ts, a pure module with no imports, compiled into
 * this page: one rule, not a copy); the job's answer then shows what the server recognised.
 */
import { useEffect, useRef, useState } from 'react';
import { api, ApiProblem, call, type Schemas } from '../api';
import { ErrorBox } from '../components';
import { fieldOfHeader } from '../../../src/domain/jobs/columns';
import { submitList } from '../../../clients/typescript/src/index';

type Job = Schemas['ListJob'];

/** The first line's column names (a display of the header: quotes removed, comma or semicolon). */
function headerColumns(firstLine: string, ndjson: boolean): string[] {
  if (ndjson) {
    try {
      return Object.keys(JSON.parse(firstLine) as object);
    } catch {
      return [];
    }
  }
  const line = firstLine.replace(/^\ufeff/, '').replace(/\r$/, '');
  const delimiter = (line.match(/;/g)?.length ?? 0) > (line.match(/,/g)?.length ?? 0) ? ';' : ',';
  return line.split(delimiter).map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

export function Lists() {
  const [file, setFile] = useState<File | null>(null);
  const [columns, setColumns] = useState<string[]>([]);
  const [job, setJob] = useState<Job | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const ndjson = file ? /\.(ndjson|jsonl)$/i.test(file.name) : false;

  const choose = async (f: File | undefined) => {
    setJob(null);
    setProblem(null);
    setFile(f ?? null);
    if (!f) return setColumns([]);
    const head = await f.slice(0, 64 * 1024).text();
    setColumns(headerColumns(head.split('\n')[0] ?? '', /\.(ndjson|jsonl)$/i.test(f.name)));
  };

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setProblem(null);
    try {
      const created = await submitList({ baseUrl: `${window.location.origin}/api/v1` }, file, { format: ndjson ? 'ndjson' : 'csv' });
      setJob(created.job);
    } catch (err) {
      const e2 = err as { status?: number; code?: string | null; requestId?: string | null; message: string };
      setProblem(new ApiProblem(e2.status ?? 0, e2.code ?? 'CLIENT_ERROR', e2.message, e2.requestId ?? null, null));
    } finally {
      setBusy(false);
    }
  };

  // The live progress: the job polled until it ends.
  useEffect(() => {
    if (!job || FINISHED.has(job.status)) return;
    const timer = window.setTimeout(async () => {
      try {
        setJob((await call(api.GET('/jobs/{id}', { params: { path: { id: job.id } } }))).job);
      } catch (err) {
        setProblem(err);
      }
    }, 1000);
    return () => window.clearTimeout(timer);
  }, [job]);

  const recognised = columns.map((name) => ({ name, field: fieldOfHeader(name) }));
  return (
    <section aria-labelledby="lists-title">
      <h2 id="lists-title">Enrich a list</h2>
      <p className="muted">A CSV or NDJSON file of people (up to 1,000,000 rows): each row is found by its profile URL, or matched by name and company, email, title or location.</p>
      <form onSubmit={submit}>
        <div
          className={`dropzone${dragging ? ' dragging' : ''}`}
          data-testid="dropzone"
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            void choose(e.dataTransfer.files[0]);
          }}
        >
          <label htmlFor="list-file">Choose a file, or drop it here</label>
          <input id="list-file" ref={input} type="file" accept=".csv,.ndjson,.jsonl,text/csv" onChange={(e) => void choose(e.target.files?.[0])} />
        </div>
        {file && (
          <>
            <h3>Columns of {file.name}</h3>
            <table data-testid="list-columns">
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">Read as</th>
                </tr>
              </thead>
              <tbody>
                {recognised.map((c, i) => (
                  <tr key={i}>
                    <td>{c.name}</td>
                    <td>{c.field ?? <span className="muted">not used (kept in the results)</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button type="submit" disabled={busy}>
              {busy ? 'Uploading…' : 'Enrich this list'}
            </button>
          </>
        )}
      </form>
      <ErrorBox problem={problem} />
      {job && (
        <div data-testid="list-job" aria-live="polite">
          <h3>Job {job.id}</h3>
          <label htmlFor="list-progress">
            {job.status}: {job.rows_done} of {job.rows_read} rows ({job.matched} matched, {job.unmatched} unmatched, {job.failed} failed)
            {job.eta_seconds !== null && job.status === 'running' ? `, about ${job.eta_seconds} s left` : ''}
          </label>
          <progress id="list-progress" data-testid="list-progress" max={Math.max(job.rows_read, 1)} value={job.rows_done} />
          {job.status === 'completed' && (
            <p>
              <a className="button" data-testid="list-download" href={`/api/v1/jobs/${job.id}/results?format=csv`} download={`enriched-${job.id}.csv`}>
                Download the results (CSV)
              </a>
            </p>
          )}
        </div>
      )}
    </section>
  );
}
