/**
 * What an idle server's background loops cost the database (issue 35: an idle `enrich serve` spent
 * tens of ms of CPU a second polling): the event feed sequencer's pass and the list job worker's
 * claim first probe whether anything waits (one statement on a partial index) and open no
 * transaction when nothing does; as soon as something waits, the pass or claim runs as before.
 * On a database of its own, so other files' events and jobs cannot make it busy meanwhile.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { claimChunks } from '../../../src/db/repositories/listJobs';
import { insertFeedEvents } from '../../../src/db/repositories/eventFeed';
import { createWorkspace } from '../../../src/domain/workspaces/admin';
import { FeedSequencer } from '../../../src/jobs/feedSequencer';
import { Metrics } from '../../../src/observability/metrics';
import { isolatedDatabase } from '../../helpers/identifierPool';

const silent = pino({ level: 'silent' });

/** The statements a pool sends while `run` runs (knex's query event: one per statement, BEGIN and COMMIT included). */
async function statementsOf<T>(db: Knex, run: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const listener = (q: { sql: string }) => void sql.push(q.sql);
  db.on('query', listener);
  try {
    return { result: await run(), sql };
  } finally {
    db.off('query', listener);
  }
}

describe('idle background polls', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Knex;
  beforeAll(async () => {
    database = await isolatedDatabase('idle');
    db = createKnex(database.url, 2);
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('the sequencer: an idle pass is one probe (no transaction, no lock, gauges at 0); a waiting event is numbered by the next pass', async () => {
    const metrics = new Metrics();
    const sequencer = new FeedSequencer({ db, logger: silent, metrics });
    try {
      // The first pass also prunes the retention (once a minute); the next ones are the idle polls.
      await sequencer.tick();
      const idle = await statementsOf(db, () => sequencer.tick());
      expect(idle.result).toBe(0);
      expect(idle.sql).toHaveLength(1);
      expect(idle.sql[0]).toMatch(/^select exists \(select 1 from event_feed where position is null\)/);
      expect(await metrics.registry.getSingleMetricAsString('enrich_event_feed_unsequenced')).toMatch(/enrich_event_feed_unsequenced 0/);

      const { workspace_id: workspaceId } = await createWorkspace(db, { name: 'idle polls', rateLimit: 100, active: true });
      const ids = [randomUUID(), randomUUID()];
      await insertFeedEvents(db, ids.map((id) => ({ id, workspace_id: workspaceId, monitor_id: randomUUID(), event: 'monitor.test', subject_id: null, body: '{}' })));
      const busy = await statementsOf(db, () => sequencer.tick());
      expect(busy.result).toBe(2);
      expect(busy.sql.some((s) => s.includes('pg_try_advisory_xact_lock'))).toBe(true);
      const positions = (await db('event_feed').whereIn('id', ids).orderBy('seq').select('position')).map((r) => Number(r.position));
      expect(positions).toEqual([positions[0], positions[0]! + 1]);
      expect(positions[0]).toBeGreaterThan(0);

      // Numbered: idle again, one probe.
      const after = await statementsOf(db, () => sequencer.tick());
      expect(after.result).toBe(0);
      expect(after.sql).toHaveLength(1);
    } finally {
      metrics.close();
    }
  }, 60_000);

  it('the list job claim: no job queued or running answers nothing after one probe', async () => {
    const { result, sql } = await statementsOf(db, () => claimChunks(db, { token: randomUUID(), limit: 1, leaseSeconds: 30, perWorkspace: 2 }));
    expect(result).toEqual([]);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/^select exists \(select 1 from list_jobs where status in \('queued', 'running'\)\)/);
  });
});
