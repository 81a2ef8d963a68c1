/**
 * Every event type from a real change: a lake loaded with the simulator's world, a monitor on every
 * subject, simulated time moved on, one refresh round against the simulator on loopback. Each
 * change-log entry must reach the receiver exactly as logged (event, diff, monitor), signed with
 * the monitor's revealed secret (verified by the standardwebhooks package), and its payload must
 * match the contract's webhook schema. A subject withdrawn while its events are queued sends none.
 */
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../../src/config';
import { revealSecret } from '../../../src/domain/monitors/monitors';
import { suppress } from '../../../src/domain/lake/suppression';
import type { DeliveryWorker } from '../../../src/jobs/deliveryWorker';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { closeSources, eventually, httpSource, loadWorld } from '../../helpers/live';
import { deliveryWorker, Receiver, testKeys, TestResolver, webhookPayloadProblems, webhookTestConfig } from '../../helpers/webhooks';

const WORLD = { persons: 60, companies: 12, seed: 4242, asOf: defaultAsOf() };
const RATES = { job: 0.01, title: 0.01, location: 0.01, headcount: 0.05, name: 0.02, hq: 0.02, industry: 0.02 };
const DAY = 86_400;
const ALL_EVENTS = [
  'company.headcount_changed', 'company.hq_changed', 'company.industry_changed', 'company.name_changed',
  'person.job_changed', 'person.location_changed', 'person.title_changed',
];

const resolver = new TestResolver();
const receiver = new Receiver();
let h: Harness;
let sim: Simulator;
let server: SimulatorServer;
let worker: DeliveryWorker | undefined;
// Registered before the lake's, so everything on its database closes before it is dropped.
afterAll(async () => {
  await worker?.stop();
  await receiver.close();
  await closeSources();
  await server?.close();
  await h?.close();
});
const lake = useLakeWorld();

beforeAll(async () => {
  await loadWorld(lake.h.knex, createWorld(WORLD), WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  server = await startSimulatorServer(sim);
  h = await createHarness({ databaseUrl: lake.url, config: webhookTestConfig(), resolveHost: resolver.resolve });
  await receiver.start();
}, 120_000);

describe('change events', () => {
  it('each change detected by the refresh reaches its monitors, signed, as logged; a withdrawn subject sends nothing', async () => {
    const { key } = await h.workspace({ rateLimit: 100_000 });
    const subjects = [
      ...(await h.knex('persons').select('id', 'username')).map((r) => ({ ...r, type: 'person', section: 'in' })),
      ...(await h.knex('companies').select('id', 'username')).map((r) => ({ ...r, type: 'company', section: 'company' })),
    ];
    const subjectById = new Map<string, { username: string; network_url: string }>([
      ...(await h.knex.raw(`select id, username, record->>'network_url' as network_url from persons`)).rows,
      ...(await h.knex.raw(`select id, username, record->>'network_url' as network_url from companies`)).rows,
    ].map((r: { id: string; username: string; network_url: string }) => [r.id, r]));
    const monitorOf = new Map<string, string>();
    const secretOf = new Map<string, string>();
    for (const s of subjects) {
      const res = await h.post(
        '/api/v1/monitors',
        { type: s.type, subject_url: `https://www.linkedin.com/${s.section}/${s.username}`, webhook_url: receiver.url('/events') },
        key,
      );
      expect(res.status).toBe(201);
      monitorOf.set(s.id, res.body.monitor.id);
      secretOf.set(res.body.monitor.id, await revealSecret({ db: h.knex, keys: testKeys() }, res.body.monitor.id));
    }
    // One monitor subscribed to title changes only, on the first person.
    const narrow = await h.post(
      '/api/v1/monitors',
      { type: 'person', subject_url: `https://www.linkedin.com/in/${subjects[0]!.username}`, webhook_url: receiver.url('/narrow'), events: ['person.title_changed'] },
      key,
    );
    expect(narrow.status).toBe(201);

    const before = Number((await h.knex('change_log').max<{ max: number }[]>({ max: 'id' }))[0]!.max ?? 0);
    sim.advance(150 * DAY);
    const refresh = new RefreshWorker({
      db: h.knex,
      source: httpSource(server.protocolUrl),
      config: { ...loadConfig({}).refresh, batchSize: 50, minAgeSeconds: 0, watchedMinAgeSeconds: 0 },
      logger: pino({ level: 'silent' }),
    });
    await refresh.runRound({ dueBefore: (await h.knex.raw('select now() as now')).rows[0].now });
    const entries = await h.knex('change_log').where('id', '>', before).orderBy('id');
    expect([...new Set(entries.map((e) => e.event))].sort()).toEqual(ALL_EVENTS);

    // Enqueued with the change, in its transaction: one per entry for the subject's monitor, plus
    // the narrow monitor's title changes.
    const deliveries = await h.knex('monitor_deliveries').whereIn('change_id', entries.map((e) => e.id));
    const narrowTitles = entries.filter((e) => e.subject_id === subjects[0]!.id && e.event === 'person.title_changed');
    expect(deliveries).toHaveLength(entries.length + narrowTitles.length);
    expect(deliveries.filter((d) => d.monitor_id === narrow.body.monitor.id).map((d) => d.change_id).sort()).toEqual(narrowTitles.map((e) => e.id).sort());

    // Withdraw one person with queued events before any is sent.
    const withdrawn = entries.find((e) => e.kind === 'person' && e.subject_id !== subjects[0]!.id)!.subject_id as string;
    const withdrawnIds = deliveries.filter((d) => d.subject_id === withdrawn).map((d) => d.id);
    expect(withdrawnIds.length).toBeGreaterThan(0);
    await suppress(h.knex, 'person', { by: 'id', value: withdrawn });
    for (const row of await h.knex('monitor_deliveries').whereIn('id', withdrawnIds)) {
      expect(row).toMatchObject({ state: 'cancelled', subject_id: null });
      expect(JSON.parse(row.body).diff).toBeNull();
      expect(JSON.parse(row.body).subject).toBeNull();
    }

    worker = deliveryWorker(h.knex, { resolver, config: { concurrency: 16 } });
    worker.start();
    const sendable = deliveries.filter((d) => d.subject_id !== withdrawn);
    await eventually(async () => new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size >= sendable.length, 60_000);
    const byChange = new Map(entries.map((e) => [Number(e.id), e]));
    for (const d of sendable) {
      const [received] = receiver.of(d.id);
      expect(received).toBeDefined();
      const payload = new Webhook(secretOf.get(d.monitor_id) ?? (await revealSecret({ db: h.knex, keys: testKeys() }, d.monitor_id))).verify(
        received!.body,
        received!.headers,
      ) as Record<string, unknown>;
      const entry = byChange.get(Number(d.change_id))!;
      const subject = subjectById.get(entry.subject_id)!;
      expect(payload).toEqual({
        id: d.id, event: entry.event, monitor_id: d.monitor_id, timestamp: expect.stringMatching(/^[0-9]+$/), diff: entry.diff,
        // Who changed, as the lookup names it.
        subject: { type: entry.kind, id: entry.subject_id, username: subject.username, network_url: subject.network_url },
      });
      expect(webhookPayloadProblems(payload)).toEqual([]);
      if (d.monitor_id !== narrow.body.monitor.id) expect(d.monitor_id).toBe(monitorOf.get(entry.subject_id));
    }
    for (const id of withdrawnIds) expect(receiver.of(id)).toEqual([]);
    // Each one recorded as succeeded after its 2xx.
    await eventually(async () => {
      const s = await h.knex('monitor_deliveries').whereIn('id', sendable.map((d) => d.id)).distinct('state');
      return s.length === 1 && s[0].state === 'succeeded';
    });
  }, 120_000);
});
