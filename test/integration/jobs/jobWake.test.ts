/**
 * The list job worker woken by NOTIFY instead of polling every JOB_POLL_MS (issue 35: an idle
 * `enrich serve` spent its background CPU on polls). Queueing a job notifies the channel in the
 * queueing transaction; a listening worker's idle slots send no statement (their fallback poll is
 * ten minutes here) and work a job as soon as it is queued; with its listening connection really
 * broken (pg_terminate_backend) the slots poll every JOB_POLL_MS until it listens again. On a
 * database of its own (a worker claims every job of its database).
 */
import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { createLogger } from '../../../src/logger';
import { ListJobWorker } from '../../../src/jobs/listJobWorker';
import { upload, useJobsHarness, waitForJob } from '../../helpers/listJobs';
import { eventually } from '../../helpers/live';

const h = useJobsHarness();
const NEVER_MS = 600_000;

async function statementsOf(pool: Knex, ms: number): Promise<string[]> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => void sql.push(q.sql);
  pool.on('query', listener);
  try {
    await new Promise((r) => setTimeout(r, ms));
    return sql;
  } finally {
    pool.off('query', listener);
  }
}

/** The harness's database (this file's own). */
const databaseUrlOf = (db: Knex) => (db.client.config.connection as { connectionString: string }).connectionString;

/** A worker on a pool of its own (the harness's pool also carries the app's own writes: usage counts). */
function worker(timing?: { initialBackoffMs: number; maxBackoffMs: number }): ListJobWorker & { db: Knex } {
  const db = createKnex(databaseUrlOf(h.knex), 4);
  const w = new ListJobWorker({
    db,
    config: { ...h.config.jobs, pollMs: 50 },
    logger: createLogger('silent'),
    wake: { databaseUrl: databaseUrlOf(h.knex), fallbackMs: NEVER_MS, timing },
  });
  const stop = w.stop.bind(w);
  return Object.assign(w, {
    db,
    stop: async () => {
      await stop();
      await db.destroy();
    },
  });
}

async function terminateListener(): Promise<number> {
  const { rows } = await h.knex.raw<{ rows: { n: number }[] }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and application_name = 'enrich-jobs-listener'`,
  );
  return rows[0]!.n;
}

describe('the list job worker woken by NOTIFY', () => {
  it('listening: idle slots send nothing; a queued job is worked without waiting for the fallback poll', async () => {
    const w = worker();
    try {
      w.start();
      await eventually(async () => w.listening, 20_000, 20);
      await new Promise((r) => setTimeout(r, 300));
      expect(await statementsOf(w.db, 1_000)).toEqual([]);
      const id = (await upload(h, h.key(), 'name,company\nJane Doe,Acme\n')).body.job.id;
      const job = await waitForJob(h, h.key(), id, (j) => j.status === 'completed', 30_000);
      expect(job.rows_done).toBe(1);
    } finally {
      await w.stop();
    }
  }, 60_000);

  it('its listening connection broken: the slots poll every JOB_POLL_MS and work a queued job; it listens again after', async () => {
    // The first reconnection waits long enough to see the poll alone work a job.
    const w = worker({ initialBackoffMs: 120_000, maxBackoffMs: 120_000 });
    try {
      w.start();
      await eventually(async () => w.listening, 20_000, 20);
      expect(await terminateListener()).toBe(1);
      await eventually(async () => !w.listening, 20_000, 20);
      expect((await statementsOf(w.db, 1_000)).length).toBeGreaterThan(2);
      const id = (await upload(h, h.key(), 'name,company\nJohn Roe,Acme\n')).body.job.id;
      await waitForJob(h, h.key(), id, (j) => j.status === 'completed', 30_000);
      expect(w.listening).toBe(false);
    } finally {
      await w.stop();
    }
    const again = worker({ initialBackoffMs: 200, maxBackoffMs: 400 });
    try {
      again.start();
      await eventually(async () => again.listening, 20_000, 20);
      expect(await terminateListener()).toBe(1);
      await eventually(async () => {
        const { rows } = await h.knex.raw<{ rows: { n: number }[] }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'enrich-jobs-listener'`,
        );
        return rows[0]!.n === 1 && again.listening;
      }, 20_000, 20);
      await new Promise((r) => setTimeout(r, 300));
      expect(await statementsOf(again.db, 1_000)).toEqual([]);
      const id = (await upload(h, h.key(), 'name,company\nJim Poe,Acme\n')).body.job.id;
      await waitForJob(h, h.key(), id, (j) => j.status === 'completed', 30_000);
    } finally {
      await again.stop();
    }
  }, 90_000);
});
