/**
 * Realtime calls waiting on a slow live source hold no database connection (issue 20, row 3), and
 * the documented source bounds (LIVE_SOURCE_CONCURRENCY in flight, LIVE_SOURCE_QUEUE waiting) are
 * what limits them. The source is real: the simulator over http through the real adapter and
 * policy, behind a gate (a loopback proxy holding every request until the test opens it), so
 * "slow" is a state the test controls and no assertion depends on time. The app's request pool has
 * 5 connections (the harness), fewer than the calls kept waiting.
 */
import { loadConfig } from '../../../src/config';
import { BUSY_RETRY_AFTER_SECONDS } from '../../../src/domain/live/realtime';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { closeSources, eventually, httpSource, loadWorld, startGate, SwitchableSource, type Gate } from '../../helpers/live';
import type supertest from 'supertest';

const WORLD = { persons: 40, companies: 6, seed: 2718, asOf: defaultAsOf() };
const world = createWorld(WORLD);
const username = (i: number) => world.person(i).username;
/** Deadlines far beyond any wait here: a call ends when the gate opens, never by its deadline. */
const PATIENT = { timeoutMs: 120_000, batchTimeoutMs: 120_000 };

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let source: SwitchableSource;
let h: Harness;
let key: string;
let workspaceId: string;
const gates: Gate[] = [];

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0 });
  server = await startSimulatorServer(sim);
  source = new SwitchableSource(httpSource(server.protocolUrl, PATIENT));
  const base = loadConfig({});
  h = await createHarness({ databaseUrl: lake.url, liveSource: source, config: { live: { ...base.live, ...PATIENT } } });
  ({ key, workspaceId } = await h.workspace({ rateLimit: 100_000 }));
}, 120_000);

lake.beforeClose(async () => {
  for (const gate of gates) gate.open();
  await h?.close();
  await closeSources();
  await Promise.all(gates.map((g) => g.close()));
  await server?.close();
});

/** A gated source with these bounds becomes the app's source. */
async function gatedSource(bounds: { concurrency: number; queue: number }): Promise<Gate> {
  const gate = await startGate(server.protocolUrl);
  gates.push(gate);
  source.target = httpSource(gate.url, { ...PATIENT, ...bounds });
  return gate;
}

const get = (path: string) => h.send(h.http.get(path).set('Authorization', `Bearer ${key}`));
const realtime = (i: number) => get(`/api/v1/person/realtime?username=${username(i)}&max_age=0`);
const usage = async () =>
  Number((await h.knex('realtime_usage').where('workspace_id', workspaceId).count<{ count: number }[]>({ count: '*' }))[0]!.count);

describe('GET /person/realtime on a slow source', () => {
  it('12 calls waiting on the source (the pool has 5 connections) leave lookups answering; then all 12 answer 200, metered once each', async () => {
    const gate = await gatedSource({ concurrency: 12, queue: 0 });
    const used = await usage();
    const calls = Array.from({ length: 12 }, (_, i) => realtime(i));
    // Every call is at the source at once: none waits for a database connection.
    await eventually(async () => gate.arrived === 12, 60_000, 20);
    // Meanwhile the plain lookups answer from the pool, which the waiting calls do not hold.
    const lookups = await Promise.all([0, 13, 14].map((i) => get(`/api/v1/person?username=${username(i)}`)));
    expect(lookups.map((r) => r.status)).toEqual([200, 200, 200]);
    gate.open();
    const answers = await Promise.all(calls);
    expect(answers.map((r) => [r.status, r.body.source])).toEqual(Array(12).fill([200, 'live']));
    expect(await usage()).toBe(used + 12);
  });

  it('past LIVE_SOURCE_CONCURRENCY + LIVE_SOURCE_QUEUE a call is answered 503 LIVE_SOURCE_UNAVAILABLE at once, before the source answers anyone', async () => {
    const gate = await gatedSource({ concurrency: 2, queue: 2 });
    const used = await usage();
    const done: supertest.Response[] = [];
    const calls = Array.from({ length: 8 }, (_, i) => realtime(20 + i).then((r) => (done.push(r), r)));
    // 2 in flight (at the gate), 2 waiting, 4 refused: the 4 refusals come while the gate is still shut.
    await eventually(async () => done.length === 4 && gate.arrived === 2, 60_000, 20);
    expect(done.map((r) => [r.status, r.body.code])).toEqual(Array(4).fill([503, 'LIVE_SOURCE_UNAVAILABLE']));
    expect(done[0]!.body.error).toMatch(/busy/);
    // The overflow refusal says when to come back (issue 32, row 12); the contract documents it.
    for (const r of done) expect(r.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_SECONDS));
    gate.open();
    const answers = await Promise.all(calls);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(4);
    expect(gate.arrived).toBe(4);
    // Only the answers are metered.
    expect(await usage()).toBe(used + 4);
  });

  it('calls for one subject share one fetch while they wait (one request reaches the source)', async () => {
    const gate = await gatedSource({ concurrency: 4, queue: 0 });
    const calls = Array.from({ length: 6 }, () => realtime(30));
    await eventually(async () => gate.arrived === 1, 60_000, 20);
    // Calls for other subjects still get through (a lookup and a second subject).
    expect((await get(`/api/v1/person?username=${username(30)}`)).status).toBe(200);
    gate.open();
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(gate.arrived).toBe(1);
  });
});
