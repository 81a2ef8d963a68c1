/**
 * A list job across `kill -9` (issue 34, point 6), with real `enrich worker` processes on a lake of
 * their own: the first worker is SIGKILLed while it holds a chunk's lease, mid-job; a second one
 * takes the chunk over once the lease expires and finishes the job. Every row has exactly one
 * result, the counters add up to the rows, and the download has every row once, in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { parse } from 'csv-parse/sync';
import { ENRICH_BIN } from '../../helpers/cli';
import { createHarness, type Harness } from '../../helpers/harness';
import { SHARED_WORLD, useLakeWorld } from '../../helpers/lakeWorld';
import { eventually } from '../../helpers/live';
import { results, upload, waitForJob } from '../../helpers/listJobs';
import { loadConfig } from '../../../src/config';

let h: Harness;
const children: ChildProcess[] = [];
const lake = useLakeWorld({ world: SHARED_WORLD });
lake.beforeClose(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await h?.close();
});

beforeAll(async () => {
  // Small chunks: many of them, so the kill lands in the middle of the job.
  h = await createHarness({ databaseUrl: lake.url, config: { jobs: { ...loadConfig({}).jobs, chunkRows: 40, inProcess: false } } });
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, [ENRICH_BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: lake.url,
      ENRICH_DATA_DIR: os.tmpdir(),
      LIVE_SOURCE: '',
      LIVE_SOURCE_URL: '',
      LOG_LEVEL: 'warn',
      JOB_LEASE_SECONDS: '3',
      JOB_WORKER_CONCURRENCY: '1',
      JOB_POLL_MS: '50',
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<string | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode);
    child.once('exit', (_code, signal) => resolve(signal));
  });

describe('a list job worker process killed with kill -9 mid-job', () => {
  it('loses nothing and duplicates nothing: another worker takes the chunk over', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const usernames = (await h.knex('persons').select('username').orderBy('username').limit(600)).map((r: { username: string }) => r.username);
    expect(usernames.length).toBeGreaterThan(300);
    // Identifier rows and rows with a name alone (failed: too little to match), interleaved.
    const lines = usernames.flatMap((u, i) => [`${u},`, `,Nobody Zzyzx${i} at Nowhere Corp`]);
    const res = await upload(h, key, `username,name\n${lines.join('\n')}\n`);
    expect(res.status).toBe(202);
    const total = lines.length;
    const id = res.body.job.id as string;

    const first = startWorker();
    // Killed while it holds a lease, after some chunks were committed.
    await eventually(async () => {
      const [row] = await h.knex('list_jobs').where('id', id).select('rows_done');
      const [leased] = await h.knex('list_job_chunks').where('job_id', id).whereNotNull('lease_token').where('done', false).count('* as n');
      return row.rows_done > 0 && row.rows_done < total && Number(leased!.n) > 0;
    }, 120_000, 20);
    first.kill('SIGKILL');
    expect(await exited(first)).toBe('SIGKILL');
    const atKill = (await h.knex('list_jobs').where('id', id).first()) as { rows_done: number; status: string };
    expect(atKill.status).toBe('running');
    expect(atKill.rows_done).toBeLessThan(total);

    startWorker();
    const job = await waitForJob(h, key, id, (j) => j.status === 'completed', 180_000);
    expect(job.rows_done).toBe(total);
    expect(job.matched + job.unmatched + job.failed).toBe(total);
    expect(job.matched).toBe(usernames.length);
    expect(job.failed).toBe(usernames.length);

    const [counts] = await h.knex('list_job_rows').where('job_id', id).whereNotNull('outcome').count('* as n');
    expect(Number(counts!.n)).toBe(total);
    const csv = await results(h, key, id);
    const rows = parse(csv.body as string, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => Number(r._row))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(rows.filter((r, i) => i % 2 === 0).every((r) => r._outcome === 'matched')).toBe(true);
  }, 400_000);
});
