/**
 * `enrich jobs submit FILE [--wait] | results ID | list | show ID | cancel ID`: list jobs (issue 34)
 * through the API with nothing but an API key (--api-key or ENRICH_API_KEY), as a customer does.
 * The upload streams from disk (never read whole); the results stream to stdout (`> out.csv`);
 * `--wait` polls the job with a progress bar (cli-progress on a terminal, lines otherwise).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { CliExit, print, type CliIo } from './common';
import { load } from './lazy';

interface ApiOptions {
  apiKey?: string;
  apiUrl?: string;
  json?: boolean;
}

interface JobBody {
  id: string;
  status: string;
  rows_read: number;
  rows_done: number;
  matched: number;
  unmatched: number;
  failed: number;
  eta_seconds: number | null;
  columns: { name: string; field: string | null }[];
  error: { code: string; message: string } | null;
}

class JobsError extends Error {}

function api(io: CliIo, o: ApiOptions): { base: string; key: string } {
  const key = o.apiKey ?? io.env.ENRICH_API_KEY;
  if (!key) throw new JobsError('an API key is needed: --api-key or ENRICH_API_KEY');
  const config = load.config().loadConfig(io.env);
  const url = o.apiUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  return { base: `${url.replace(/\/+$/, '')}/api/v1`, key };
}

async function call(io: CliIo, o: ApiOptions, path: string, init: RequestInit & { duplex?: 'half' } = {}): Promise<Response> {
  const { base, key } = api(io, o);
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${key}`);
  const res = await fetch(`${base}${path}`, { ...init, headers });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; error?: string };
    throw new JobsError(`${init.method ?? 'GET'} ${path.split('?')[0]} answered ${res.status} ${body.code ?? ''}: ${body.error ?? ''}`);
  }
  return res;
}

const summary = (j: JobBody) =>
  `${j.id}  ${j.status}  ${j.rows_done}/${j.rows_read} rows  matched ${j.matched}  unmatched ${j.unmatched}  failed ${j.failed}` +
  (j.error ? `  error ${j.error.code}: ${j.error.message}` : '');

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

async function wait(io: CliIo, o: ApiOptions, job: JobBody, quiet: boolean, intervalMs: number): Promise<JobBody> {
  const bar = load.progress().createProgress('rows', job.rows_read, quiet, io.stderr, { unit: 'rows' });
  try {
    for (;;) {
      job = ((await (await call(io, o, `/jobs/${job.id}`)).json()) as { job: JobBody }).job;
      bar.update(job.rows_done, job.status);
      if (FINISHED.has(job.status)) return job;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  } finally {
    bar.stop();
  }
}

export function registerJobCommands(program: Command, io: CliIo): void {
  const jobs = program.command('jobs').description('List jobs: enrich a CSV or NDJSON file through the API (needs an API key)');
  const common = (c: Command) =>
    c
      .option('--api-key <key>', 'the workspace API key (default: $ENRICH_API_KEY)')
      .option('--api-url <base>', 'where the server is reached (default http://127.0.0.1:$PORT)')
      .option('--json', 'print the answer as JSON');

  common(
    jobs
      .command('submit <file>')
      .description('upload a CSV (.csv) or NDJSON (.ndjson, .jsonl) file; --wait follows it to the end with a progress bar')
      .option('--format <format>', 'csv or ndjson (default: from the file name)')
      .option('--min-likelihood <p>', 'the bar of matched rows (0..1)')
      .option('--mapping <json>', 'field -> column header, e.g. {"email":"E-mail Address"}')
      .option('--webhook-url <url>', 'HTTPS URL for the signed completion event')
      .option('--wait', 'poll the job until it ends, with a progress bar on stderr')
      .option('--quiet', 'no progress output')
      .option('--interval <ms>', 'polling interval with --wait', '1000'),
  ).action(
    async (
      file: string,
      opts: ApiOptions & { format?: string; minLikelihood?: string; mapping?: string; webhookUrl?: string; wait?: boolean; quiet?: boolean; interval: string },
    ) => {
      const format = opts.format ?? (/\.(nd)?jsonl?$/i.test(file) || /\.ndjson$/i.test(file) ? 'ndjson' : 'csv');
      if (format !== 'csv' && format !== 'ndjson') throw new JobsError('--format must be csv or ndjson');
      const query = new URLSearchParams();
      if (opts.minLikelihood) query.set('min_likelihood', opts.minLikelihood);
      if (opts.mapping) query.set('mapping', opts.mapping);
      if (opts.webhookUrl) query.set('webhook_url', opts.webhookUrl);
      const size = fs.statSync(file).size;
      const res = await call(io, opts, `/jobs${query.size ? `?${query}` : ''}`, {
        method: 'POST',
        headers: { 'Content-Type': format === 'csv' ? 'text/csv' : 'application/x-ndjson', 'Content-Length': String(size) },
        body: Readable.toWeb(fs.createReadStream(file)) as ReadableStream,
        duplex: 'half',
      });
      const created = (await res.json()) as { job: JobBody; webhook_secret: string | null };
      let job = created.job;
      if (!opts.json) {
        io.stdout.write(`Job ${job.id}: ${job.rows_read} rows queued\n`);
        io.stdout.write(`Columns: ${job.columns.map((c) => `${c.name}${c.field ? ` -> ${c.field}` : ''}`).join(', ')}\n`);
        if (created.webhook_secret) io.stdout.write(`Webhook secret (shown once, save it): ${created.webhook_secret}\n`);
      }
      if (opts.wait) {
        job = await wait(io, opts, job, Boolean(opts.quiet || opts.json), Math.max(100, Number(opts.interval) || 1000));
        if (!opts.json) io.stdout.write(`${summary(job)}\nResults: enrich jobs results ${job.id} > results.csv\n`);
      }
      if (opts.json) io.stdout.write(`${JSON.stringify({ ...created, job })}\n`);
      if (job.status === 'failed') throw new CliExit(1);
    },
  );

  common(
    jobs
      .command('results <id>')
      .description('stream the results to stdout (CSV by default): every row once, in order; the rows done so far while it runs')
      .option('--format <format>', 'csv or ndjson', 'csv')
      .option('--from-row <n>', 'resume a broken download at this row'),
  ).action(async (id: string, opts: ApiOptions & { format: string; fromRow?: string }) => {
    const query = new URLSearchParams({ format: opts.format });
    if (opts.fromRow) query.set('from_row', opts.fromRow);
    const res = await call(io, opts, `/jobs/${encodeURIComponent(id)}/results?${query}`);
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) io.stdout.write(decoder.decode(chunk, { stream: true }));
    io.stdout.write(decoder.decode());
  });

  common(jobs.command('list').description("the workspace's jobs, newest first")).action(async (opts: ApiOptions) => {
    const body = (await (await call(io, opts, '/jobs?per_page=100')).json()) as { results: JobBody[] };
    print(io, Boolean(opts.json), body, body.results.length ? body.results.map(summary).join('\n') : 'No jobs.');
  });

  common(jobs.command('show <id>').description('a job and its progress')).action(async (id: string, opts: ApiOptions) => {
    const body = (await (await call(io, opts, `/jobs/${encodeURIComponent(id)}`)).json()) as { job: JobBody };
    print(io, Boolean(opts.json), body, summary(body.job));
  });

  common(jobs.command('cancel <id>').description('stop a job; the rows done keep their results')).action(async (id: string, opts: ApiOptions) => {
    const body = (await (await call(io, opts, `/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST' })).json()) as { job: JobBody };
    print(io, Boolean(opts.json), body, summary(body.job));
  });
}

export { JobsError };
