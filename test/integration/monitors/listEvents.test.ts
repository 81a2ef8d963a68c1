/**
 * GET /events: the workspace's change events, the bodies of their webhook deliveries, in feed order.
 * A subscriber reads the feed, goes offline while real refresh rounds against the simulator on
 * loopback keep producing events, then catches up from the last event id it saw: it must end with
 * every event of its workspace exactly once, in the feed's order (no gap, no duplicate), and none of
 * another workspace's. Filters, `after`, and errors are checked too; every response goes through the
 * harness's contract validator.
 */
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { closeSources, eventually, httpSource, loadWorld } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';

const WORLD = { persons: 40, companies: 8, seed: 7331, asOf: defaultAsOf() };
const RATES = { job: 0.01, title: 0.01, location: 0.01, headcount: 0.05, name: 0.02, hq: 0.02, industry: 0.02 };
const DAY = 86_400;

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let h: Harness;
let mine: { workspaceId: string; key: string };
let theirs: { workspaceId: string; key: string };

beforeAll(async () => {
  await loadWorld(lake.h.knex, createWorld(WORLD), WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  server = await startSimulatorServer(sim);
  h = await createHarness({ databaseUrl: lake.url, resolveHost: fakeResolver });
  mine = await h.workspace({ rateLimit: 100_000 });
  theirs = await h.workspace({ rateLimit: 100_000 });
}, 120_000);

lake.beforeClose(async () => {
  await closeSources();
  await h?.close();
  await server?.close();
});

const feed = (query: string, key = mine.key) => h.get(`/api/v1/events?${query}`, key);

async function watchEverything(key: string): Promise<Map<string, string>> {
  const monitorOf = new Map<string, string>();
  const subjects = [
    ...(await h.knex('persons').select('id', 'username')).map((r) => ({ ...r, type: 'person', section: 'in' })),
    ...(await h.knex('companies').select('id', 'username')).map((r) => ({ ...r, type: 'company', section: 'company' })),
  ];
  for (const s of subjects) {
    const res = await h.post(
      '/api/v1/monitors',
      { type: s.type, subject_url: `https://www.linkedin.com/${s.section}/${s.username}`, webhook_url: 'https://hooks.example.test/enrich' },
      key,
    );
    expect(res.status).toBe(201);
    monitorOf.set(res.body.monitor.id, s.id);
  }
  return monitorOf;
}

/** The workspace's change events in feed order, straight from the table. */
const expectedIds = async (workspaceId: string) =>
  (
    await h.knex.raw(
      `select d.id from monitor_deliveries d join monitors m on m.id = d.monitor_id
       where m.workspace_id = ? and (d.change_id is null or d.subject_id is not null) order by d.feed_xid, d.feed_seq`,
      [workspaceId],
    )
  ).rows.map((r: { id: string }) => r.id);

describe('GET /events', () => {
  it('a subscriber offline for a while catches up from its last event id: every event once, in order, while refresh produces more', async () => {
    const monitors = await watchEverything(mine.key);
    await watchEverything(theirs.key);
    const refresh = new RefreshWorker({
      db: h.knex,
      source: httpSource(server.protocolUrl),
      config: { ...loadConfig({}).refresh, batchSize: 20, minAgeSeconds: 0, watchedMinAgeSeconds: 0 },
      logger: pino({ level: 'silent' }),
    });
    const round = async () => {
      sim.advance(60 * DAY);
      await refresh.runRound({ dueBefore: (await h.knex.raw('select now() as now')).rows[0].now });
    };

    const seen: Record<string, unknown>[] = [];
    const readFrom = async (after: string | undefined) => {
      let res = await feed(`per_page=7${after ? `&after=${after}` : ''}`);
      for (;;) {
        expect(res.status).toBe(200);
        seen.push(...res.body.results);
        if (!res.body.next_cursor) return;
        res = await feed(`per_page=7&cursor=${res.body.next_cursor}`);
      }
    };
    const last = () => (seen.length ? String(seen[seen.length - 1]!.id) : undefined);

    await round();
    // Online: reads while the next round is being produced.
    await Promise.all([round(), readFrom(undefined)]);
    // The first round's events show once every older transaction on the server has ended (another
    // test file's too): an online subscriber reads again until they are there, as below.
    await eventually(async () => {
      if (!seen.length) await readFrom(last());
      return seen.length > 0;
    });
    const beforeOffline = seen.length;
    expect(beforeOffline).toBeGreaterThan(0);
    // Offline for three rounds, then catching up while two more are produced, then a final read.
    for (let i = 0; i < 3; i++) await round();
    const catchingUp = (async () => {
      for (let i = 0; i < 4; i++) await readFrom(last());
    })();
    await Promise.all([round().then(round), catchingUp]);
    // Events appear once every older transaction on the server has ended (another database's too,
    // on a shared server): read until the feed has reached the last one recorded.
    const expected = await expectedIds(mine.workspaceId);
    await eventually(async () => {
      await readFrom(last());
      return seen.length >= expected.length;
    });
    expect(expected.length).toBeGreaterThan(beforeOffline);
    // No gap, no duplicate, in order: exactly the workspace's events in feed order.
    expect(seen.map((e) => e.id)).toEqual(expected);
    // The webhook's body, as stored, and only this workspace's monitors.
    const bodies = new Map((await h.knex('monitor_deliveries').whereIn('id', expected).select('id', 'body')).map((r) => [r.id, JSON.parse(r.body)]));
    for (const e of seen) {
      expect(e).toEqual(bodies.get(String(e.id)));
      expect(monitors.has(String(e.monitor_id))).toBe(true);
    }

    // Filters: one monitor, one event type, since.
    const someEvent = seen[Math.floor(seen.length / 2)]!;
    const byMonitor = await feed(`monitor_id=${someEvent.monitor_id}&per_page=100`);
    expect(byMonitor.body.results.map((e: { id: string }) => e.id)).toEqual(seen.filter((e) => e.monitor_id === someEvent.monitor_id).map((e) => e.id));
    const byType = await feed(`event=${someEvent.event}&per_page=100`);
    expect(byType.body.results.length).toBeGreaterThan(0);
    expect(byType.body.results.every((e: { event: string }) => e.event === someEvent.event)).toBe(true);
    expect(byType.body.total).toBe(seen.filter((e) => e.event === someEvent.event).length);
    const future = await feed('since=2999-01-01T00:00:00Z');
    expect(future.body.results).toEqual([]);

    // Another workspace's monitor and event are not ours.
    const theirMonitor = (await h.knex('monitors').where('workspace_id', theirs.workspaceId).first('id')).id;
    expect((await feed(`monitor_id=${theirMonitor}`)).status).toBe(404);
    const theirEvent = (await expectedIds(theirs.workspaceId))[0];
    const foreignAfter = await feed(`after=${theirEvent}`);
    expect(foreignAfter.status).toBe(400);
    expect(foreignAfter.body.code).toBe('VALIDATION_ERROR');
  }, 300_000);

  it('an event recorded by a transaction still open is not listed, nor anything after it, until that transaction ends', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const person = await h.knex('persons').first('id', 'username');
    const monitor = (
      await h.post('/api/v1/monitors', { type: 'person', subject_url: `https://www.linkedin.com/in/${person.username}`, webhook_url: 'https://hooks.example.test/x' }, key)
    ).body.monitor;
    const insert = async (db: typeof h.knex, id: string) => {
      const change = (
        await db.raw(`insert into change_log (kind, subject_id, event, diff, origin) values ('person', ?, 'person.title_changed', '{"old_title":"a","new_title":"b"}', 'refresh') returning id`, [person.id])
      ).rows[0].id;
      const body = JSON.stringify({ id, event: 'person.title_changed', monitor_id: monitor.id, timestamp: '1795256052', diff: { old_title: 'a', new_title: 'b', company: null, company_id: null }, subject: { type: 'person', id: person.id, username: person.username, network_url: `https://www.linkedin.com/in/${person.username}/` } });
      await db.raw(
        `insert into monitor_deliveries (id, monitor_id, event, change_id, subject_id, destination, body, manual, next_attempt_at) values (?, ?, 'person.title_changed', ?, ?, 'hooks.example.test', ?, false, now())`,
        [id, monitor.id, change, person.id, body],
      );
    };
    const trx = await h.knex.transaction();
    try {
      await insert(trx as unknown as typeof h.knex, '00000000-0000-4000-8000-000000000001');
      // Committed after the open one started: it follows it in feed order, so it waits too.
      await insert(h.knex, '00000000-0000-4000-8000-000000000002');
      expect((await feed('per_page=100', key)).body.results).toEqual([]);
    } finally {
      await trx.commit();
    }
    const after = await eventually(async () => {
      const res = await feed('per_page=100', key);
      return res.body.results.length > 0 && res;
    });
    expect(after.body.results.map((e: { id: string }) => e.id)).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']);
    expect(await expectedIds(workspaceId)).toHaveLength(2);
  });
});
