/**
 * The lease fence of a refresh write (refreshQueue.ts lockLeased, through the writer): a worker
 * whose lease on its batch expired and was taken over by another worker writes nothing of that
 * batch (its records are "dropped"), and the worker now holding the lease writes them. Real
 * simulator on loopback, real database; the two workers are two claims with their own tokens.
 */
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { claimAndAsk, writeAsked, type BatchOptions } from '../../../src/domain/refresh/round';
import { closeSources, httpSource, loadWorld } from '../../helpers/live';
import { useLakeWorld } from '../../helpers/lakeWorld';

const WORLD = { persons: 40, companies: 4, seed: 3535, asOf: defaultAsOf() };
const RATES = { job: 0.02, title: 0.02, location: 0.02, headcount: 0.02, name: 0.02, hq: 0.02, industry: 0.02 };

const lake = useLakeWorld();
let server: SimulatorServer;

beforeAll(async () => {
  await loadWorld(lake.h.knex, createWorld(WORLD), WORLD.persons);
  // 30 simulated days later: some records changed, the rest only re-verified.
  const sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  sim.advance(30 * 86_400);
  server = await startSimulatorServer(sim);
}, 120_000);

afterAll(async () => {
  await closeSources();
  await server?.close();
});

it('a batch whose lease was taken over is dropped whole; the new holder writes it', async () => {
  const db = lake.h.knex;
  const deps = { db, source: httpSource(server.protocolUrl) };
  const now = (await db.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
  const opts: BatchOptions = { batchSize: 10, leaseSeconds: 30, dueBefore: now, watchedDueBefore: now };

  const first = await claimAndAsk(deps, 'person', opts);
  expect(first.claimed).toHaveLength(10);
  const ids = first.claimed.map((c) => c.id).sort();
  const before = await db('persons').whereIn('id', ids).select('id', 'fetched_at');

  // The first worker's lease runs out (it stalled); a second worker claims the same records.
  await db('person_refresh').where('lease_token', first.token).update({ lease_until: db.raw("now() - interval '1 second'") });
  const second = await claimAndAsk(deps, 'person', opts);
  expect(second.claimed.map((c) => c.id).sort()).toEqual(ids);

  // The stalled worker's write comes first: the fence finds none of its leases, so nothing is written.
  const late = await writeAsked(deps, first);
  expect(late).toMatchObject({ claimed: 10, changed: 0, unchanged: 0, dropped: 10, changes: 0 });
  expect(await db('persons').whereIn('id', ids).select('id', 'fetched_at')).toEqual(expect.arrayContaining(before));
  expect(await db('person_refresh').whereIn('person_id', ids).where('lease_token', second.token).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 10 }]);

  // The holder's write goes through and ends its leases.
  const held = await writeAsked(deps, second);
  expect(held.changed + held.unchanged).toBe(10);
  expect(held.dropped).toBe(0);
  const queue = await db('person_refresh').whereIn('person_id', ids).select('lease_token', 'checked_at');
  expect(queue.every((q) => q.lease_token === null && q.checked_at.getTime() > now.getTime())).toBe(true);
});
