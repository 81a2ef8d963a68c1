/**
 * What withdrawal erases (the README's list of every place that can hold a copy of a person's data,
 * issue 20): one person with a copy in each place — the lake, the refresh queue, the change log,
 * queued webhook deliveries, monitors in two workspaces (one labelled with the person's name), a
 * realtime answer stored under an Idempotency-Key, the usage ledger, a fetch lease left behind by
 * a crashed instance — is withdrawn once (as `enrich suppress person` does), then each place is
 * checked in a test of its own. The live source is the simulator over http on loopback; its world
 * has moved on 60 days, so the realtime write-back logs real changes that queue real deliveries.
 */
import { randomUUID } from 'node:crypto';
import { takeFetchLease } from '../../../src/db/repositories/realtimeFetchLeases';
import { suppress } from '../../../src/domain/lake/suppression';
import { createWorld, defaultAsOf } from '../../../src/world';
import { loadSaved, saveSaved } from '../../../src/world/simulator/persistence';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { closeSources, httpSource, loadWorld } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';
import { webhookTestConfig } from '../../helpers/webhooks';

const WORLD = { persons: 12, companies: 4, seed: 9091, asOf: defaultAsOf() };
const RATES = { job: 0.5, title: 0.5, location: 0.5, headcount: 0, name: 0, hq: 0, industry: 0 };
const world = createWorld(WORLD);
const subject = world.person(3);
const other = world.person(4);

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let h: Harness;
let a: { workspaceId: string; key: string };
let b: { workspaceId: string; key: string };
const IDEMPOTENCY_KEY = randomUUID();
const REALTIME = `/api/v1/person/realtime?username=${subject.username}&max_age=0`;
const before = {
  monitors: [] as string[],
  otherMonitor: '',
  changes: [] as number[],
  deliveries: [] as string[],
  testDelivery: '',
  usage: 0,
  sourceCalls: 0,
};

const send = (path: string, key: string, headers: Record<string, string> = {}) => {
  let t = h.http.get(path).set('Authorization', `Bearer ${key}`);
  for (const [name, value] of Object.entries(headers)) t = t.set(name, value);
  return h.send(t);
};
const createMonitor = async (key: string, username: string, label: string) => {
  const res = await h.post(
    '/api/v1/monitors',
    { type: 'person', subject_url: `https://www.linkedin.com/in/${username}`, webhook_url: 'https://hooks.example.test/enrich', label },
    key,
  );
  expect(res.status).toBe(201);
  return res.body.monitor.id as string;
};
const usageRows = () => h.knex('realtime_usage').where('workspace_id', a.workspaceId);

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  sim.advance(60 * 86_400);
  server = await startSimulatorServer(sim);
  h = await createHarness({ databaseUrl: lake.url, liveSource: httpSource(server.protocolUrl), config: webhookTestConfig(), resolveHost: fakeResolver });
  a = await h.workspace({ rateLimit: 10_000 });
  b = await h.workspace({ rateLimit: 10_000 });

  before.monitors = [
    await createMonitor(a.key, subject.username, `${subject.full_name}, watch her moves`),
    await createMonitor(b.key, subject.username, 'target account'),
  ];
  before.otherMonitor = await createMonitor(a.key, other.username, 'someone else');
  // A monitor.test delivery names the subject in its payload, though it carries no subject id.
  const test = await h.send(h.http.post(`/api/v1/monitors/${before.monitors[0]}/test`).set('Authorization', `Bearer ${a.key}`));
  expect(test.status).toBe(202);
  before.testDelivery = test.body.delivery.id;
  // A live answer stored under an Idempotency-Key; its write-back logs changes and queues deliveries.
  const answer = await send(REALTIME, a.key, { 'Idempotency-Key': IDEMPOTENCY_KEY });
  expect([answer.status, answer.body.source]).toEqual([200, 'live']);
  before.changes = (await h.knex('change_log').where('subject_id', subject.id).select('id')).map((r) => Number(r.id));
  expect(before.changes.length).toBeGreaterThan(0);
  before.deliveries = (await h.knex('monitor_deliveries').whereIn('monitor_id', before.monitors).select('id')).map((r) => r.id);
  expect(before.deliveries.length).toBeGreaterThan(0);
  before.usage = (await usageRows()).length;
  // An instance that crashed while fetching the subject left its lease.
  await takeFetchLease(h.knex, `realtime:person:username:${subject.username}`, randomUUID(), 600_000, { kind: 'person', username: subject.username });
  before.sourceCalls = sim.stats.calls.person;

  await suppress(h.knex, 'person', { by: 'username', value: subject.username });
}, 180_000);

lake.beforeClose(async () => {
  await h?.close();
  await closeSources();
  await server?.close();
});

describe('what withdrawal erases', () => {
  it('lake tables: the record and its rows are deleted; every read answers 451', async () => {
    expect(await h.knex('persons').where('id', subject.id).first()).toBeUndefined();
    expect(await h.knex('person_positions').where('person_id', subject.id).first()).toBeUndefined();
    expect((await send(`/api/v1/person?username=${subject.username}`, a.key)).status).toBe(451);
  });

  it('tombstones: only one-way hashes of its identifiers remain', async () => {
    const rows = await h.knex('suppressions').select();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(subject.username);
    expect(JSON.stringify(rows)).not.toContain(subject.id);
  });

  it('refresh queue: its row goes with the record', async () => {
    expect(await h.knex('person_refresh').where('person_id', subject.id).first()).toBeUndefined();
  });

  it('change log: its entries keep event and time, lose the diff and the subject id', async () => {
    const rows = await h.knex('change_log').whereIn('id', before.changes);
    expect(rows).toHaveLength(before.changes.length);
    for (const row of rows) expect([row.subject_id, row.diff, row.redacted_at !== null]).toEqual([null, null, true]);
  });

  it('webhook delivery queue and log: queued deliveries (tests included) are cancelled, every one loses its diff, subject and subject id', async () => {
    expect(before.deliveries).toContain(before.testDelivery);
    const rows = await h.knex('monitor_deliveries').whereIn('id', before.deliveries);
    expect(rows).toHaveLength(before.deliveries.length);
    for (const row of rows) {
      expect(row.state).toBe('cancelled');
      expect(row.subject_id).toBeNull();
      expect(JSON.parse(row.body)).toMatchObject({ diff: null, subject: null });
      expect(row.body).not.toContain(subject.username);
    }
  });

  it('event feed: its events (tests included) keep only their id and position; none is listed', async () => {
    const rows = await h.knex('event_feed').whereIn('id', before.deliveries).select('body', 'subject_id');
    expect(rows).toHaveLength(before.deliveries.length);
    for (const row of rows) expect(row).toEqual({ body: null, subject_id: null });
    expect(JSON.stringify(await h.knex('event_feed').whereIn('monitor_id', before.monitors).select())).not.toContain(subject.username);
  });

  it('monitors: deactivated for good in every workspace, subject URL and label erased; other monitors untouched', async () => {
    for (const [id, key] of [[before.monitors[0]!, a.key], [before.monitors[1]!, b.key]] as const) {
      const res = await send(`/api/v1/monitors/${id}`, key);
      expect(res.status).toBe(200);
      expect(res.body.monitor).toMatchObject({ active: false, subject_url: null, label: null });
    }
    const listed = await send('/api/v1/monitors', a.key);
    expect(JSON.stringify(listed.body)).not.toContain(subject.username);
    expect(JSON.stringify(listed.body)).not.toContain(subject.full_name);
    // A test event would name the subject: refused.
    const test = await h.send(h.http.post(`/api/v1/monitors/${before.monitors[0]}/test`).set('Authorization', `Bearer ${a.key}`));
    expect([test.status, test.body.code]).toEqual([451, 'DATA_SUBJECT_BLOCKED']);
    const untouched = await send(`/api/v1/monitors/${before.otherMonitor}`, a.key);
    expect(untouched.body.monitor).toMatchObject({ active: true, subject_url: `https://www.linkedin.com/in/${other.username}`, label: 'someone else' });
  });

  it('idempotency keys: the stored answer is erased, and a replay answers 451 as a new call does, not metered', async () => {
    const row = await h.knex('idempotency_keys').where({ workspace_id: a.workspaceId, key: IDEMPOTENCY_KEY }).first();
    expect([row.state, row.response, row.subject_id]).toEqual(['withdrawn', null, null]);
    const replay = await send(REALTIME, a.key, { 'Idempotency-Key': IDEMPOTENCY_KEY });
    expect([replay.status, replay.body.code, replay.headers['idempotent-replayed']]).toEqual([451, 'DATA_SUBJECT_BLOCKED', undefined]);
    const fresh = await send(REALTIME, a.key);
    expect([fresh.status, fresh.body.code]).toEqual([451, 'DATA_SUBJECT_BLOCKED']);
    expect((await usageRows()).length).toBe(before.usage);
  });

  it('in-memory state: nothing serves the subject again, and the live source is never asked for it', async () => {
    expect((await send(REALTIME, b.key)).status).toBe(451);
    expect(sim.stats.calls.person).toBe(before.sourceCalls);
  });

  it('usage ledger: its rows name no subject (workspace, account, operation, price, time), so they stay', async () => {
    const rows = await usageRows();
    expect(rows).toHaveLength(before.usage);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['account_id', 'cost_usd', 'created_at', 'id', 'operation_id', 'workspace_id']);
    }
  });

  it('fetch leases: a lease left behind names no one (the subject is a one-way hash)', async () => {
    const rows = await h.knex('realtime_fetch_leases').select();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(subject.username);
  });

  it("the simulator's saved state holds its world's size, seed and clock, no record", async () => {
    await saveSaved(h.knex, { world: { persons: 12, companies: 4, seed: 9091, as_of: WORLD.asOf.toISOString() }, sim_time: new Date().toISOString() });
    const saved = await loadSaved(h.knex);
    expect(Object.keys(saved!).sort()).toEqual(['sim_time', 'world']);
    expect(Object.keys(saved!.world).sort()).toEqual(['as_of', 'companies', 'persons', 'seed']);
  });
});
