/**
 * GET /company/realtime against the simulator on loopback: the lake holds the first 6 of its 8
 * companies. The failure paths are shared with persons (enrichPersonRealtime.test.ts covers them in
 * depth); here: cache, live by each identifier, a miss inserted, 404, 451 and 503.
 */
import { randomUUID } from 'node:crypto';
import { freePort } from '../../../src/db/embedded';
import type { CompanyRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { httpSource, SwitchableSource, closeSources } from '../../helpers/live';

const asOf = defaultAsOf();
const WORLD = { persons: 0, companies: 8, seed: 99, asOf };
const world = createWorld(WORLD);
const PATH = '/api/v1/company/realtime';

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let source: SwitchableSource;
let h: Harness;
let key: string;
let workspaceId: string;

beforeAll(async () => {
  await writeRecords(lake.h.knex, 'company', Array.from({ length: 6 }, (_, i) => world.company(i) as CompanyRecord));
  sim = new Simulator({ world: WORLD, speed: 0, rates: { headcount: 0.1, name: 0.01, hq: 0.01, industry: 0.01 } });
  server = await startSimulatorServer(sim);
  source = new SwitchableSource(httpSource(server.protocolUrl));
  h = await createHarness({ databaseUrl: lake.url, liveSource: source });
  ({ key, workspaceId } = await h.workspace({ rateLimit: 100_000 }));
}, 120_000);

// Closed before the lake's database is dropped.
lake.beforeClose(async () => {
  await closeSources();
  await h?.close();
  await source?.close();
  await server?.close();
});

const get = (query: string) => h.send(h.http.get(`${PATH}?${query}`).set('Authorization', `Bearer ${key}`));
const usage = async () =>
  Number((await h.knex('realtime_usage').where('workspace_id', workspaceId).count<{ count: number }[]>({ count: '*' }))[0]!.count);
const calls = () => sim.stats.calls.company;

describe('GET /company/realtime', () => {
  it('serves a young copy from the lake, and an old one live, by username, company_id, id or URL', async () => {
    const c = world.company(1);
    const cached = await get(`company_id=${c.company_id}&max_age=31536000`);
    expect(cached.body).toMatchObject({ source: 'cache', cost_usd: 0.001, data: { username: c.username } });
    const before = calls();
    for (const q of [`username=${c.username}`, `company_id=${c.company_id}`, `id=${c.id}`, `network_url=${encodeURIComponent(c.network_url)}`]) {
      const res = await get(`${q}&max_age=0`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ source: 'live', data: { id: c.id, company_id: c.company_id } });
    }
    expect(calls()).toBe(before + 4);
    expect((await h.get(`/api/v1/company?username=${c.username}`, key)).body.data.fetched_at).toBe((await get(`id=${c.id}`)).body.data.fetched_at);
  });

  it('inserts a company the lake does not hold, found by company_id', async () => {
    const c = world.company(7);
    expect((await h.get(`/api/v1/company?company_id=${c.company_id}`, key)).status).toBe(404);
    const res = await get(`company_id=${c.company_id}`);
    expect(res.body).toMatchObject({ source: 'live', data: { id: c.id, name: c.name } });
    expect((await h.get(`/api/v1/company?company_id=${c.company_id}`, key)).body.data).toEqual(res.body.data);
  });

  it('logs the changes a live copy brings (headcount and others)', async () => {
    sim.advance(300 * 86_400);
    const c = world.company(2);
    const res = await get(`username=${c.username}&max_age=0`);
    expect(res.body.data.staff_count).not.toBe(c.staff_count);
    const entries = await h.knex('change_log').where({ subject_id: c.id, origin: 'realtime' });
    expect(entries.find((e) => e.event === 'company.headcount_changed')!.diff).toEqual({
      old_staff_count: c.staff_count,
      new_staff_count: res.body.data.staff_count,
      change: res.body.data.staff_count - (c.staff_count as number),
    });
  });

  it('404 for a company neither knows, 404 for an unknown id; not metered', async () => {
    const used = await usage();
    expect((await get('username=no-such-company-zzzzz')).status).toBe(404);
    expect((await get('company_id=1')).status).toBe(404);
    expect((await get(`id=${randomUUID()}`)).status).toBe(404);
    expect(await usage()).toBe(used);
  });

  it('451 for a withdrawn company without contacting the source', async () => {
    const c = world.company(3);
    await suppress(h.knex, 'company', { by: 'company_id', value: c.company_id });
    const before = calls();
    for (const q of [`company_id=${c.company_id}`, `username=${c.username}`, `id=${c.id}`]) {
      expect((await get(`${q}&max_age=0`)).status).toBe(451);
    }
    expect(calls()).toBe(before);
  });

  it('503 for an unreachable source, nothing written or metered', async () => {
    source.target = httpSource(`http://127.0.0.1:${await freePort()}/v1`);
    try {
      const used = await usage();
      const res = await get(`username=${world.company(4).username}&max_age=0`);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('LIVE_SOURCE_UNAVAILABLE');
      expect(await usage()).toBe(used);
    } finally {
      source.target = httpSource(server.protocolUrl);
    }
  });
});
