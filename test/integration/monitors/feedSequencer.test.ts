/**
 * The event feed's sequencer (src/jobs/feedSequencer.ts, db/repositories/eventFeed.ts
 * sequencePending) under real concurrency, and when its database is gone.
 *
 * Writers commit events in transactions held open for various times (so they commit in another
 * order than they started), two sequencers on separate pools (two processes' worth) number them,
 * and a subscriber pages GET /events with `after=` all the while. It must end with every event
 * exactly once, in position order: no event ever appears before a position it has already read.
 * A sequencer whose database port is closed fails its pass fast, logs it once, and never throws.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createKnex } from '../../../src/db/knex';
import { freePort } from '../../../src/db/embedded';
import { insertFeedEvents } from '../../../src/db/repositories/eventFeed';
import { FeedSequencer } from '../../../src/jobs/feedSequencer';
import { Metrics } from '../../../src/observability/metrics';
import { testDatabaseUrl, useHarness } from '../../helpers/harness';
import { eventually } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });
const silent = pino({ level: 'silent' });

describe('the event feed sequencer', () => {
  it('two sequencers and writers committing out of order: a subscriber paging meanwhile gets every event once, in order', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 1_000_000 });
    const monitor = (
      await h.post('/api/v1/monitors', { type: 'person', subject_url: 'https://www.linkedin.com/in/sequenced', webhook_url: 'https://hooks.example.test/s' }, key)
    ).body.monitor;
    const pools = [createKnex(testDatabaseUrl(), 2), createKnex(testDatabaseUrl(), 2)];
    const metrics = new Metrics();
    const sequencers = pools.map((db, i) => new FeedSequencer({ db, logger: silent, everyMs: 50, metrics: i === 0 ? metrics : undefined }));
    const writers = createKnex(testDatabaseUrl(), 6);
    const written: string[] = [];
    const seen: string[] = [];
    let writing = true;
    try {
      sequencers.forEach((s) => s.start());
      const write = async (w: number) => {
        for (let i = 0; i < 15; i++) {
          await writers.transaction(async (trx) => {
            const ids = [randomUUID(), randomUUID()];
            const body = (id: string) => JSON.stringify({ id, event: 'monitor.test', monitor_id: monitor.id, timestamp: '1795256052', diff: {}, subject: { type: 'person', id: null, username: 'sequenced', network_url: 'https://www.linkedin.com/in/sequenced/' } });
            await insertFeedEvents(trx, ids.map((id) => ({ id, workspace_id: workspaceId, monitor_id: monitor.id, event: 'monitor.test', subject_id: null, body: body(id) })));
            // Held open for a while, longer for some writers: commit order differs from start order.
            await trx.raw('select pg_sleep(?)', [((w * 37 + i * 11) % 7) / 20]);
            written.push(...ids);
          });
        }
      };
      const read = async () => {
        let last: string | undefined;
        while (writing || seen.length < written.length) {
          const res = await h.get(`/api/v1/events?per_page=7${last ? `&after=${last}` : ''}`, key);
          expect(res.status).toBe(200);
          const ids = res.body.results.map((e: { id: string }) => e.id);
          seen.push(...ids);
          if (ids.length) last = ids[ids.length - 1];
          else await new Promise((r) => setTimeout(r, 20));
        }
      };
      const reader = read();
      await Promise.all([0, 1, 2, 3, 4].map(write));
      writing = false;
      await reader;
      expect(seen).toHaveLength(written.length);
      expect(new Set(seen).size).toBe(written.length);
      expect([...seen].sort()).toEqual([...written].sort());
      const byPosition = (await h.knex('event_feed').where({ workspace_id: workspaceId }).orderBy('position').select('id')).map((r) => r.id);
      expect(seen).toEqual(byPosition);
      // (Other files' sequencers on the run's database may have numbered some of them too: one
      // pass at a time per database, whoever runs it.)
      await eventually(async () => (await metrics.registry.getSingleMetricAsString('enrich_event_feed_unsequenced')).includes('enrich_event_feed_unsequenced 0'));
      expect(await metrics.registry.getSingleMetricAsString('enrich_event_feed_sequenced_total')).toMatch(/enrich_event_feed_sequenced_total \d+/);
    } finally {
      writing = false;
      await Promise.all(sequencers.map((s) => s.stop()));
      await Promise.all([...pools, writers].map((p) => p.destroy()));
    }
  }, 120_000);

  it('a database that is not there: the pass fails fast, is logged once, and the loop keeps going', async () => {
    const url = new URL(testDatabaseUrl());
    url.port = String(await freePort());
    const db = createKnex(url.toString(), 1);
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const sequencer = new FeedSequencer({ db, logger, everyMs: 50, timeoutMs: 1_000 });
    try {
      const started = Date.now();
      expect(await sequencer.tick()).toBe(0);
      expect(await sequencer.tick()).toBe(0);
      // Refused at once by the closed port, well within the statement bound.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(lines.filter((l) => l.msg.includes('event feed sequencer'))).toHaveLength(1);
      sequencer.start();
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await sequencer.stop();
      await db.destroy();
    }
    expect(lines.filter((l) => l.msg.includes('event feed sequencer'))).toHaveLength(1);
  }, 60_000);
});
