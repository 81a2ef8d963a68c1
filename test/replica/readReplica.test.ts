/**
 * The service on a primary with a real streaming standby (pg_basebackup -R), both started here from
 * the machine's PostgreSQL binaries (cluster.ts): `enrich migrate` on the primary, then `enrich
 * serve --no-migrate` with DATABASE_URL = the primary and DATABASE_READ_URL = the standby.
 *
 * Where reads run is shown by the servers themselves, never by the service's own word: the standby
 * counts the table scans of its own queries (pg_stat_user_tables; nothing but the service's read
 * pool queries its tables), and a standby whose replay is paused (pg_wal_replay_pause) lacks what
 * the primary wrote since, so a 404 or a 200 for that row says which one served it.
 * Faults are real: replay paused (lag), the standby stopped with pg_ctl mid-traffic and started again.
 * Every answer is checked against the contract and bounded (support.timed: a hang fails the test);
 * the assertions wait for states (`eventually`), never for a speed.
 */
import { createKnex, type Knex } from '../../src/db/knex';
import { createWorkspace } from '../../src/domain/workspaces/admin';
import { createWorld } from '../../src/world';
import { personRecord, storePersons } from '../helpers/lakeRecords';
import { bearer, eventually, sleep, timed, type Timed } from '../faults/support';
import { caughtUp, missingReason, startCluster, tableScans, type Cluster } from './cluster';
import { runEnrich, serve, type Served } from './service';

const skip = missingReason();
if (skip) process.stdout.write(`replica lane skipped: ${skip}\n`);
const describeCluster = skip ? describe.skip : describe;

/** The simulator's world (LIVE_SOURCE=simulator): a person the lake does not hold, for the realtime write-back. */
const SIM = { LIVE_SOURCE: 'simulator', LIVE_SIM_PORT: '0', LIVE_SIM_PERSONS: '40', LIVE_SIM_COMPANIES: '8', LIVE_SIM_SEED: '77', LIVE_SIM_AS_OF: '2026-11-01' };
const simPerson = () => createWorld({ persons: 40, companies: 8, seed: 77, asOf: new Date('2026-11-01T00:00:00Z') }).person(3).username;

/** The bounds of the request path: a lost standby costs a read at most these before the primary answers. */
const TIMEOUTS = { DB_STATEMENT_TIMEOUT_MS: '2000', DB_ACQUIRE_TIMEOUT_MS: '1000', READINESS_TIMEOUT_MS: '500' };
const QUIET = { REFRESH_IN_PROCESS: '0', WEBHOOK_DELIVERY_IN_PROCESS: '0', USAGE_FLUSH_MS: '500' };

let cluster: Cluster;
let admin: Knex;
let keyA: string;
let keyB: string;
let stored: string;

const person = (svc: Served, username: string, key = keyA) => timed(`${svc.url}/api/v1/person?username=${username}`, bearer(key));
const ready = (svc: Served) => timed(`${svc.url}/api/v1/health/ready`);
type Replicas = { name: string; state: string; lag_seconds: number | null }[];
const replicasOf = (res: Timed) => (res.body.checks as { replicas?: Replicas }).replicas;
async function metrics(svc: Served): Promise<string> {
  const res = await fetch(`${svc.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  return res.text();
}
const gauge = (text: string, name: string) => {
  const m = new RegExp(`^${name}\\{replica="replica_1"\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

/** A person written on the primary only (the standby has it once it replays). */
async function writeOnPrimary(): Promise<string> {
  const record = personRecord();
  await storePersons(admin, record);
  return record.username;
}

async function untilCaughtUp(): Promise<void> {
  expect(await eventually(() => caughtUp(cluster), 30_000, 100)).toBe(true);
}

/** Table scans on `node` grow while `reads` run: its own statistics say it served them (flushed within about a second). */
async function servedBy(node: Cluster['primary'], reads: () => Promise<void>): Promise<boolean> {
  const before = await tableScans(node);
  await reads();
  return eventually(async () => (await tableScans(node)) > before, 20_000, 250);
}

beforeAll(async () => {
  if (skip) return;
  cluster = await startCluster();
  // The one command that migrates, against the primary.
  const migrated = await runEnrich(['migrate'], { DATABASE_URL: cluster.primary.url('enrich') });
  expect(migrated).toMatchObject({ code: 0 });
  admin = createKnex(cluster.primary.url('enrich'), 2);
  keyA = (await createWorkspace(admin, { name: 'replica-a', rateLimit: 1_000_000, active: true })).api_key;
  keyB = (await createWorkspace(admin, { name: 'replica-b', rateLimit: 1_000_000, active: true })).api_key;
  stored = await writeOnPrimary();
  await untilCaughtUp();
}, 180_000);

afterAll(async () => {
  await admin?.destroy();
  await cluster?.destroy();
});

describeCluster('enrich serve --no-migrate', () => {
  it('refuses to start on a database that `enrich migrate` has not migrated, and names the command', async () => {
    await cluster.primary.query('create database unmigrated', [], 'postgres');
    const { code, out } = await runEnrich(['serve', '--no-migrate'], { DATABASE_URL: cluster.primary.url('unmigrated'), PORT: '0', ...QUIET });
    expect(code).not.toBe(0);
    expect(out).toMatch(/run `enrich migrate`/);
    expect(out).not.toMatch(/"msg":"listening"/);
  });
});

describeCluster('a standby in use, replay paused (the standby then lacks the latest writes)', () => {
  let svc: Served;
  beforeAll(async () => {
    // A lag bound no test reaches: the paused standby stays in use, so each answer shows who served it.
    svc = await serve(['--no-migrate'], {
      DATABASE_URL: cluster.primary.url('enrich'),
      DATABASE_READ_URL: cluster.standby.url('enrich'),
      DATABASE_READ_MAX_LAG_SECONDS: '3600',
      DATABASE_READ_PROBE_MS: '200',
      ...TIMEOUTS,
      ...QUIET,
      ...SIM,
    });
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'in_use', 20_000)).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await cluster.standby.query('select pg_wal_replay_resume()').catch(() => undefined);
    await svc?.stop();
  });

  it('every kind of lake read answers from the standby (none writes there: its transactions are read-only)', async () => {
    const post = (path: string, body: unknown) =>
      timed(`${svc.url}/api/v1${path}`, { method: 'POST', headers: { Authorization: `Bearer ${keyA}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const get = (path: string) => timed(`${svc.url}/api/v1${path}`, bearer(keyA));
    const [{ id, full_name: name, current_company: company }] = await cluster.standby.query<{ id: string; full_name: string; current_company: string | null }>(
      'select id, full_name, current_company from persons where username = $1',
      [stored],
    );
    const served = await servedBy(cluster.standby, async () => {
      for (const res of [
        await get(`/person/check?username=${stored}`),
        await get(`/person/similar?username=${stored}`),
        await get(`/person/colleagues?username=${stored}`),
        await get(`/person/history?username=${stored}`),
        await post('/people/search', {}),
        await post('/people/search', { query: 'engineer' }),
        await post('/people/bulk', { ids: [id] }),
        await post('/people/bulk-enrich', { profiles: [{ username: stored }] }),
        await post('/companies/search', {}),
        // Matching is a lake read too (issue 33).
        await post('/person/match', company ? { name, company } : { username: stored }),
        await post('/people/bulk-match', { queries: [{ name, company: company ?? 'x' }, { username: stored }] }),
      ]) {
        expect(res.status).toBe(200);
      }
    });
    expect(served).toBe(true);
  });

  it('serves lake reads from the standby: its own statistics count them, and a row only the primary has is not found', async () => {
    const served = await servedBy(cluster.standby, async () => {
      for (let i = 0; i < 5; i++) expect((await person(svc, stored)).status).toBe(200);
    });
    expect(served).toBe(true);

    await cluster.standby.query('select pg_wal_replay_pause()');
    const fresh = await writeOnPrimary();
    expect(await admin('persons').where({ username: fresh }).first()).toBeDefined();
    // The standby has not replayed it: the read ran there.
    expect((await person(svc, fresh)).status).toBe(404);
  });

  it('a realtime write-back is read back by its workspace at once (pinned to the primary), while another workspace still reads the standby', async () => {
    const username = simPerson();
    const realtime = await timed(`${svc.url}/api/v1/person/realtime?username=${username}&max_age=0`, bearer(keyA));
    expect(realtime.status).toBe(200);
    expect(realtime.body.source).toBe('live');
    // The write-back went to the primary (a standby refuses writes; the row is there).
    expect(await admin('persons').where({ username }).first()).toBeDefined();

    const own = await person(svc, username, keyA);
    expect(own.status).toBe(200);
    expect((own.body.data as { username: string }).username).toBe(username);
    expect((await timed(`${svc.url}/api/v1/person/check?username=${username}`, bearer(keyA))).status).toBe(200);
    // The other workspace was not pinned: its read ran on the paused standby, which lacks the record.
    expect((await person(svc, username, keyB)).status).toBe(404);

    await cluster.standby.query('select pg_wal_replay_resume()');
    await untilCaughtUp();
    expect((await person(svc, username, keyB)).status).toBe(200);
  });
});

describeCluster('lag past the bound, a stopped standby, and recovery, without a restart', () => {
  let svc: Served;
  const MAX_LAG = 2;
  beforeAll(async () => {
    await untilCaughtUp();
    svc = await serve(['--no-migrate'], {
      DATABASE_URL: cluster.primary.url('enrich'),
      DATABASE_READ_URL: cluster.standby.url('enrich'),
      DATABASE_READ_MAX_LAG_SECONDS: String(MAX_LAG),
      DATABASE_READ_PROBE_MS: '200',
      ...TIMEOUTS,
      ...QUIET,
    });
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'in_use', 20_000)).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await cluster.standby.query('select pg_wal_replay_resume()').catch(() => undefined);
    await svc?.stop();
  });

  it('readiness and /metrics show the lag; past the bound fresh data is read from the primary; back on the standby once it catches up', async () => {
    const before = replicasOf(await ready(svc))!;
    expect(before).toEqual([{ name: 'replica_1', state: 'in_use', lag_seconds: expect.any(Number) }]);
    const text = await metrics(svc);
    expect(gauge(text, 'enrich_db_replica_lag_seconds')).toBeLessThanOrEqual(MAX_LAG);
    expect(gauge(text, 'enrich_db_replica_in_use')).toBe(1);

    await cluster.standby.query('select pg_wal_replay_pause()');
    const fresh = await writeOnPrimary();
    // The write reaches the standby's WAL receiver but is not replayed: the lag grows past the bound.
    let lagging: Replicas | undefined;
    expect(
      await eventually(async () => {
        const res = await ready(svc);
        expect(res.status).toBe(200);
        lagging = replicasOf(res);
        return lagging?.[0]?.state === 'lagging';
      }, 30_000),
    ).toBe(true);
    expect(lagging![0].lag_seconds).toBeGreaterThan(MAX_LAG);
    const lagText = await metrics(svc);
    expect(gauge(lagText, 'enrich_db_replica_lag_seconds')).toBeGreaterThan(MAX_LAG);
    expect(gauge(lagText, 'enrich_db_replica_in_use')).toBe(0);
    // Fresh data the standby lacks: found, so the primary answered.
    expect((await person(svc, fresh)).status).toBe(200);

    await cluster.standby.query('select pg_wal_replay_resume()');
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'in_use', 30_000)).toBe(true);
    expect(await servedBy(cluster.standby, async () => void expect((await person(svc, fresh)).status).toBe(200))).toBe(true);
  });

  it('a stalled standby (its processes stopped by the kernel) mid-traffic: the probe times out, reads answer 200 from the primary, none hangs; resumed, it serves again', async () => {
    let running = true;
    let slowest = 0;
    const answers: number[] = [];
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        const res = await person(svc, stored);
        answers.push(res.status);
        slowest = Math.max(slowest, res.ms);
      }
    });
    try {
      await sleep(300);
      cluster.standby.pause();
      // Only the probe's own timeout can say so: a stalled server refuses nothing.
      expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'down', 30_000)).toBe(true);
      const during = answers.length;
      expect(await eventually(async () => answers.length > during + 5, 30_000)).toBe(true);
    } finally {
      running = false;
      await Promise.all(clients);
      cluster.standby.resume();
    }
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    process.stdout.write(`replica lane: ${answers.length} reads while the standby stalled, all 200; slowest ${Math.round(slowest)} ms\n`);
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'in_use', 30_000)).toBe(true);
    expect(await servedBy(cluster.standby, async () => void expect((await person(svc, stored)).status).toBe(200))).toBe(true);
  });

  it('a standby stopped mid-traffic: every read answers 200 from the primary, none hangs; started again, it serves again', async () => {
    let running = true;
    let slowest = 0;
    const answers: number[] = [];
    // Steady traffic from several clients while the standby goes away under it.
    const clients = Array.from({ length: 4 }, async () => {
      while (running) {
        const res = await person(svc, stored);
        answers.push(res.status);
        slowest = Math.max(slowest, res.ms);
      }
    });
    await sleep(300);
    await cluster.standby.stop('fast');
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'down', 30_000)).toBe(true);
    const down = replicasOf(await ready(svc))!;
    expect(down[0]).toEqual({ name: 'replica_1', state: 'down', lag_seconds: null });
    const during = answers.length;
    expect(await eventually(async () => answers.length > during + 5, 30_000)).toBe(true);
    running = false;
    await Promise.all(clients);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    // A figure, not an assertion (the machine is shared): what losing the standby cost a read at worst.
    process.stdout.write(`replica lane: ${answers.length} reads while the standby stopped, all 200; slowest ${Math.round(slowest)} ms\n`);
    expect((await metrics(svc)).match(/^enrich_db_replica_in_use\{replica="replica_1"\} 0$/m)).not.toBeNull();

    const fresh = await writeOnPrimary();
    await cluster.standby.start();
    expect(await eventually(async () => replicasOf(await ready(svc))?.[0]?.state === 'in_use', 60_000)).toBe(true);
    await untilCaughtUp();
    expect(await servedBy(cluster.standby, async () => void expect((await person(svc, fresh)).status).toBe(200))).toBe(true);
  });
});
