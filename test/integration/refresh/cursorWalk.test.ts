/**
 * Exports while the refresh runs (issue 20 row 4): a cursor walk of a list returns every row that
 * matches for the whole walk exactly once, whatever the refresh does meanwhile. A real refresh
 * worker re-verifies the whole lake at full speed (no rate limit, no minimum age) against the
 * simulator on loopback, whose records have moved on (new titles, headcounts, names), while the
 * walks run; between two pages the test waits until the worker has re-verified more records, so
 * the refresh always moves rows mid-walk, however fast or slow the machine is.
 *
 * Without `query` people used to come most recently verified first: every record re-verified
 * ahead of the walk jumped to the top, behind it, and was never returned. Companies came largest
 * first, and a headcount the refresh rewrote moved them across the walk's position.
 */
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { closeSources, eventually, httpSource, loadWorld } from '../../helpers/live';
import { useLakeWorld } from '../../helpers/lakeWorld';

const WORLD = { persons: 400, companies: 60, seed: 2020, asOf: defaultAsOf() };
// Frequent changes, so the refresh rewrites titles, bands and headcounts as well as fetched_at.
const RATES = { job: 0.02, title: 0.02, location: 0.01, headcount: 0.05, name: 0.01, hq: 0.01, industry: 0.01 };
const DAY = 86_400;
const BATCH = 10;
const silent = pino({ level: 'silent' });

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let worker: RefreshWorker | undefined;

beforeAll(async () => {
  await loadWorld(lake.h.knex, createWorld(WORLD), WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  server = await startSimulatorServer(sim);
  sim.advance(120 * DAY);
}, 120_000);

lake.beforeClose(async () => {
  await worker?.stop();
  await closeSources();
  await server?.close();
});

/** A refresh worker at full speed: every record is due again as soon as it has been verified. */
function startRefresh(): RefreshWorker {
  const config = { ...loadConfig({}).refresh, rate: 0, batchSize: BATCH, leaseSeconds: 30, minAgeSeconds: 0, watchedMinAgeSeconds: 0, idleMs: 50 };
  const w = new RefreshWorker({ db: lake.h.knex, source: httpSource(server.protocolUrl), config, logger: silent });
  w.start();
  return w;
}

const verified = () => {
  const r = worker!.report;
  return r.changed + r.unchanged;
};

/** Walks `path` by cursor; before each next page, the refresh has re-verified at least `BATCH` more records. */
async function walk(path: string, body: object, perPage: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const res = await lake.h.post(path, { ...body, per_page: perPage, ...(cursor ? { cursor } : {}) }, lake.key);
    expect(res.status).toBe(200);
    ids.push(...res.body.results.map((r: { id: string }) => r.id));
    pages++;
    cursor = res.body.next_cursor ?? undefined;
    if (!cursor) return { ids, pages };
    const before = verified();
    await eventually(async () => verified() >= before + BATCH, 60_000, 20);
  }
}

const allIds = async (table: 'persons' | 'companies') => (await lake.h.knex(table).pluck('id')).map(String).sort();
const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe('a cursor walk while the refresh re-verifies at full speed', () => {
  it('people search without query: every person exactly once', async () => {
    const want = await allIds('persons');
    worker = startRefresh();
    const { ids, pages } = await walk('/api/v1/people/search', {}, 10);
    const refreshed = verified();
    await worker.stop();
    expect(pages).toBe(WORLD.persons / 10);
    // The refresh really ran through the walk.
    expect(refreshed).toBeGreaterThanOrEqual((pages - 1) * BATCH);
    expect(duplicates(ids)).toEqual([]);
    expect([...ids].sort()).toEqual(want);
    // Nothing left the lake, so every person matched for the whole walk.
    expect(await allIds('persons')).toEqual(want);
  }, 300_000);

  it('company search without query: every company exactly once, while headcounts change', async () => {
    sim.advance(120 * DAY);
    const want = await allIds('companies');
    const headcounts = async () => new Map((await lake.h.knex('companies').select('id', 'staff_count')).map((r) => [String(r.id), r.staff_count]));
    const before = await headcounts();
    worker = startRefresh();
    const { ids } = await walk('/api/v1/companies/search', {}, 3);
    await worker.stop();
    const after = await headcounts();
    // The refresh rewrote headcounts during the walk (the order this list used to have).
    expect([...before].filter(([id, n]) => after.get(id) !== n).length).toBeGreaterThan(0);
    expect(duplicates(ids)).toEqual([]);
    expect([...ids].sort()).toEqual(want);
  }, 300_000);
});
