/**
 * A list job never calls the live source and never meters realtime (issue 34, point 7: "metered
 * realtime is never triggered by a job unless asked for"; a job cannot ask for it, the contract
 * says so). The server here HAS a live source, the simulator on loopback, which knows persons the
 * lake does not: a job naming them answers `unmatched` from the lake, the simulator receives no
 * call and the workspace has no usage row. The same probes then see one GET /person/realtime of
 * one of those persons (a call, a usage row), so they can fail.
 */
import { loadConfig } from '../../../src/config';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { startWorker, upload, waitForJob } from '../../helpers/listJobs';
import { closeSources, httpSource, loadWorld, SwitchableSource, TEST_POLICY } from '../../helpers/live';

const WORLD = { persons: 12, companies: 4, seed: 9134, asOf: defaultAsOf() };
/** The lake holds the first 6 of the simulator's 12 persons; the other 6 are live only. */
const LOADED = 6;
const world = createWorld(WORLD);

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let source: SwitchableSource;
let h: Harness;

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, LOADED);
  sim = new Simulator({ world: WORLD, speed: 0 });
  server = await startSimulatorServer(sim);
  source = new SwitchableSource(httpSource(server.protocolUrl));
  h = await createHarness({
    databaseUrl: lake.url,
    liveSource: source,
    config: { live: { ...loadConfig({}).live, timeoutMs: TEST_POLICY.timeoutMs }, jobs: { ...loadConfig({}).jobs, inProcess: false } },
  });
}, 120_000);

lake.beforeClose(async () => {
  await closeSources();
  await h?.close();
  await source?.close();
  await server?.close();
});

const calls = () => Object.values(sim.stats.calls).reduce((a, b) => a + b, 0);
const usage = async (workspaceId: string) =>
  Number((await h.knex('realtime_usage').where('workspace_id', workspaceId).count<{ count: number }[]>({ count: '*' }))[0]!.count);

describe('a list job and realtime', () => {
  it('never calls the live source nor meters realtime, even for rows only the live source knows', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 10_000 });
    const persons = Array.from({ length: WORLD.persons }, (_, i) => world.person(i));
    const liveOnly = persons.slice(LOADED);
    // Identifier rows for all 12 (6 in the lake, 6 live only), and match rows for the live-only ones.
    const csv = [
      'username,name,company',
      ...persons.map((p) => `${p.username},,`),
      ...liveOnly.map((p) => `,"${p.full_name}","${p.current_company ?? ''}"`),
    ].join('\n');
    const callsBefore = calls();
    const res = await upload(h, key, `${csv}\n`);
    expect(res.status).toBe(202);
    const worker = startWorker(h);
    let job;
    try {
      job = await waitForJob(h, key, res.body.job.id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }
    expect(job).toMatchObject({ rows_read: 18, matched: LOADED, unmatched: 12, failed: 0 });
    expect(calls()).toBe(callsBefore);
    expect(await usage(workspaceId)).toBe(0);
    expect((await h.get('/api/v1/account', key)).body.data.usage).toMatchObject({ realtime_calls: 0, realtime_cost_usd: 0 });

    // The probes see realtime when it is asked for: one call, one usage row.
    const live = await h.get(`/api/v1/person/realtime?username=${liveOnly[0]!.username}`, key);
    expect(live.status).toBe(200);
    expect(calls()).toBeGreaterThan(callsBefore);
    expect(await usage(workspaceId)).toBe(1);
  }, 120_000);
});
