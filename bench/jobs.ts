/**
 * npm run bench:jobs — list jobs (issue 34, "How fast, measured"), side by side in one run, through
 * the real server in a child process (bench/servers/fullStack.ts, its in-process job worker) on a
 * seeded lake (database `enrich_bench_jobs`):
 *
 * 1. Identifier rows: a job of `--id-rows` profile slugs, from submit to `completed`, against the
 *    same slugs through `POST /people/bulk-enrich` (100 per request), back to back by one client.
 * 2. Match rows: a job of `--match-rows` name + company rows, against the same queries through
 *    `POST /people/bulk-match` (100 per request).
 * 3. Lookups: `GET /person` p95 over `--lookups` sequential lookups, with no job, then while an
 *    identifier job runs.
 * 4. Memory: the server's RSS (VmRSS) sampled every 50 ms while an upload of `--upload-mb` MB of
 *    generated rows streams in; the growth over the RSS before it.
 *
 * The aims (printed beside the figures, never asserted): a job >= 0.8x the bulk path's rows per
 * second; RSS growth <= 150 MB while a 500 MB upload streams; lookup p95 during a job <= 2x without.
 * `--parts=id,match,lookups,upload` runs some of them (each part's lines are printed as soon as it
 * is measured, with the load average then). Defaults are small (a shared 2-core machine): --persons=20000 --id-rows=20000 --match-rows=4000
 * --lookups=400 --upload-mb=100. The issue's sizes: --persons=100000 --id-rows=100000
 * --match-rows=20000 --upload-mb=500.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, percentile, startServerProcess, stringArg } from './lib';

const AIMS = { throughputRatio: 0.8, rssGrowthMb: 150, lookupP95Ratio: 2 };

const persons = intArg('persons', 20_000);
const idRows = intArg('id-rows', 20_000);
const matchRows = intArg('match-rows', 4_000);
const lookups = intArg('lookups', 400);
const matchRounds = intArg('match-rounds', 2);
const uploadMb = intArg('upload-mb', 100);
/** Which parts to run (comma-separated: id, match, lookups, upload); all by default. */
const parts = new Set((stringArg('parts') ?? 'id,match,lookups,upload').split(','));

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

async function main() {
  const db = await benchDatabaseUrl('enrich_bench_jobs');
  const knex = createKnex(db.url, 4);
  await migrateLatest(knex);
  await ensureLake(knex, persons, Math.max(10, Math.floor(persons / 10)));
  const ws = await createWorkspace(knex, { name: `bench-jobs-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
  const key = ws.api_key;
  const sample = (await knex('persons').select('username', 'full_name', knex.raw("record->>'current_company' as company")).orderByRaw('random()').limit(Math.max(idRows, matchRows, lookups))) as {
    username: string;
    full_name: string;
    company: string | null;
  }[];
  const server = await startServerProcess('fullStack.ts', {
    DATABASE_URL: db.url,
    JOB_UPLOAD_MAX_BYTES: String(2 * 1024 ** 3),
    HTTP_REQUEST_TIMEOUT_MS: '3600000',
    REFRESH_IN_PROCESS: '0',
    LIVE_SOURCE: 'none',
  });
  const api = `${server.url}/api/v1`;
  const auth = { authorization: `Bearer ${key}` };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${api}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  /**
   * POST /jobs with the body streamed from `parts`; `afterLastByteMs` is the time from the body's
   * last piece handed to the HTTP client (undici pulls the next piece once the previous one is
   * written) to the 202's status line: how long the server takes once the upload is in.
   */
  let afterLastByteMs = NaN;
  const submit = async (csv: string | Iterable<string>) => {
    let lastByteAt = NaN;
    const parts = typeof csv === 'string' ? [csv] : csv;
    const body = Readable.from(
      (function* () {
        yield* parts;
        lastByteAt = performance.now();
      })(),
    );
    const res = await fetch(`${api}/jobs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: Readable.toWeb(body) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    afterLastByteMs = performance.now() - lastByteAt;
    const answer = (await res.json()) as { job: { id: string }; error?: string };
    if (res.status !== 202) throw new Error(`POST /jobs: ${res.status} ${answer.error}`);
    return answer.job.id;
  };
  const finished = async (id: string) => {
    for (;;) {
      const job = ((await (await fetch(`${api}/jobs/${id}`, { headers: auth })).json()) as { job: { status: string; rows_done: number } }).job;
      if (['completed', 'failed', 'cancelled'].includes(job.status)) return job;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return (performance.now() - t) / 1000;
  };
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
  // Each part's figures are printed as soon as measured, with the load average at that moment.
  const line = (s: string) => process.stdout.write(`${s}  [load ${load()}]\n`);
  try {
    line(`bench:jobs  lake ${persons} persons  ${os.cpus().length} cores  parts ${[...parts].join(',')}`);
    if (parts.has('id')) {
      const ids = sample.slice(0, idRows);
      const idJobS = await timed(async () => finished(await submit(`username\n${ids.map((p) => p.username).join('\n')}\n`)));
      const idAfterLastByteMs = afterLastByteMs;
      const idBulkS = await timed(async () => {
        for (let i = 0; i < ids.length; i += 100) await post('/people/bulk-enrich', { profiles: ids.slice(i, i + 100).map((p) => ({ username: p.username })) });
      });
      line(`identifier rows ${ids.length}: job ${(ids.length / idJobS).toFixed(0)} rows/s (${idJobS.toFixed(1)} s)  bulk-enrich ${(ids.length / idBulkS).toFixed(0)} rows/s (${idBulkS.toFixed(1)} s)  job/bulk ${ratio(idBulkS, idJobS)} (aim >= ${AIMS.throughputRatio})`);
      line(`last byte sent -> 202: ${idAfterLastByteMs.toFixed(0)} ms for the ${ids.length}-row identifier job`);
    }
    if (parts.has('match')) {
      const queries = sample.filter((p) => p.company).slice(0, matchRows);
      const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
      const bulkMatch = () =>
        timed(async () => {
          for (let i = 0; i < queries.length; i += 100) await post('/people/bulk-match', { queries: queries.slice(i, i + 100).map((p) => ({ name: p.full_name, company: p.company! })) });
        });
      // The same queries, first once through the bulk path to warm the cache (a cold first pass
      // took 2.6x the time of a warm one: run B in docs/benchmarks.md), then job and bulk path
      // alternated `--match-rounds` times; the ratio is of their summed times.
      const matchJob = () => timed(async () => finished(await submit(`name,company\n${queries.map((p) => `${quote(p.full_name)},${quote(p.company!)}`).join('\n')}\n`)));
      const warmS = await bulkMatch();
      const jobS: number[] = [];
      const bulkS: number[] = [];
      for (let r = 0; r < matchRounds; r++) {
        jobS.push(await matchJob());
        bulkS.push(await bulkMatch());
      }
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const rows = queries.length * matchRounds;
      line(
        `match rows ${queries.length} x ${matchRounds} rounds (after a warm-up bulk pass of ${warmS.toFixed(1)} s): job ${(rows / sum(jobS)).toFixed(0)} rows/s (${jobS.map((x) => x.toFixed(1)).join(', ')} s)  bulk-match ${(rows / sum(bulkS)).toFixed(0)} rows/s (${bulkS.map((x) => x.toFixed(1)).join(', ')} s)  job/bulk ${ratio(sum(bulkS), sum(jobS))} (aim >= ${AIMS.throughputRatio})`,
      );
    }
    if (parts.has('lookups')) {
      const lookupLatencies = async () => {
        const ms: number[] = [];
        for (const p of sample.slice(0, lookups)) {
          const t = performance.now();
          const res = await fetch(`${api}/person?username=${encodeURIComponent(p.username)}`, { headers: auth });
          await res.arrayBuffer();
          ms.push(performance.now() - t);
          if (res.status !== 200) throw new Error(`GET /person answered ${res.status}`);
        }
        return ms.sort((a, b) => a - b);
      };
      const quiet = await lookupLatencies();
      const busyJob = await submit(`username\n${sample.map((p) => p.username).join('\n')}\n${sample.map((p) => p.username).join('\n')}\n`);
      const busy = await lookupLatencies();
      const busyState = (await (await fetch(`${api}/jobs/${busyJob}`, { headers: auth })).json()) as { job: { status: string } };
      await fetch(`${api}/jobs/${busyJob}/cancel`, { method: 'POST', headers: auth });
      line(`GET /person p95: ${percentile(quiet, 0.95).toFixed(1)} ms without a job, ${percentile(busy, 0.95).toFixed(1)} ms while a job ran (job ${busyState.job.status} at the end)  ratio ${ratio(percentile(busy, 0.95), percentile(quiet, 0.95))} (aim <= ${AIMS.lookupP95Ratio})`);
    }
    if (parts.has('upload')) {
      // Memory: generated rows (emails of no one), streamed.
      const before = rssMb(server.child.pid!);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid!))), 50);
      const target = uploadMb * 1024 * 1024;
      let sent = 0;
      let n = 0;
      const gen = (function* () {
        yield 'email,name,company,notes\n';
        while (sent < target) {
          let chunk = '';
          // About 600 bytes a row, so 500 MB stays under the 1,000,000-row limit (~870,000 rows).
        for (let i = 0; i < 100; i++) chunk += `person${n++}@nowhere-${n % 997}.example,Someone Number${n},Nowhere Corp ${n % 31},${'x'.repeat(530)}\n`;
          sent += chunk.length;
          yield chunk;
        }
      })();
      let uploadS = NaN;
      let uploadAfterLastByteMs = NaN;
      let uploadNote = '';
      try {
        uploadS = await timed(async () => {
          const id = await submit(gen);
          uploadAfterLastByteMs = afterLastByteMs;
          await fetch(`${api}/jobs/${id}`, { method: 'DELETE', headers: auth });
        });
      } catch (err) {
        uploadNote = ` (refused: ${err instanceof Error ? err.message.slice(0, 120) : String(err)})`;
      }
      clearInterval(sampler);
      line(`upload ${(sent / 1024 / 1024).toFixed(0)} MB (${n} rows) in ${uploadS.toFixed(1)} s${uploadNote}: server RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB, growth ${(peak - before).toFixed(0)} MB (aim <= ${AIMS.rssGrowthMb} MB for 500 MB)`);
      line(`last byte sent -> 202: ${uploadAfterLastByteMs.toFixed(0)} ms for the ${(sent / 1024 / 1024).toFixed(0)} MB upload`);
    }
  } finally {
    await server.stop();
    await knex.destroy();
    await db.stop();
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
