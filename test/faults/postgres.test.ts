/**
 * The service in front of a PostgreSQL that is stopped, killed and stalled (SIGSTOP) while it runs.
 * Every answer must come within the configured timeouts plus a generous margin (this asserts "does
 * not hang", never speed), carry the documented code, and the service must recover by itself.
 */
import { createKnex, ensureDatabase, type Knex } from '../../src/db/knex';
import { createKey, createWorkspace, revokeKey } from '../../src/domain/workspaces/admin';
import { personRecord, storePersons } from '../helpers/lakeRecords';
import { bearer, eventually, FaultPostgres, printFigures, record, sleep, startService, timed, type Service, type Timed } from './support';

const STATEMENT_TIMEOUT_MS = 1000;
const ACQUIRE_TIMEOUT_MS = 1000;
const READINESS_TIMEOUT_MS = 500;
/** Generous: the machine is shared; a hang is 30 s and fails anyway. */
const MARGIN_MS = 10_000;
/** The longest a request may legitimately wait on a dead database: a connection, then a statement. */
const BOUND_MS = ACQUIRE_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 1000 + MARGIN_MS;

let pg: FaultPostgres;
let svc: Service;
let admin: Knex;
let cachedKey: string;
let coldKey: string;
let username: string;

beforeAll(async () => {
  pg = await FaultPostgres.start();
  await ensureDatabase(pg.url(), 'enrich');
  svc = await startService({
    DATABASE_URL: pg.url('enrich'),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
    READINESS_TIMEOUT_MS: String(READINESS_TIMEOUT_MS),
    AUTH_CACHE_TTL_MS: '120000',
    AUTH_CACHE_DEGRADED_TTL_MS: '1000',
    REDIS_URL: '',
  });
  admin = createKnex(pg.url('enrich'), 2);
  const ws = await createWorkspace(admin, { name: 'faults', rateLimit: 100_000, active: true });
  cachedKey = ws.api_key;
  coldKey = (await createKey(admin, { workspaceId: ws.workspace_id })).api_key;
  const person = personRecord();
  username = person.username;
  await storePersons(admin, person);
}, 120_000);

afterAll(async () => {
  printFigures('PostgreSQL');
  await svc?.stop();
  await admin?.destroy();
  await pg?.destroy();
});

/** A fresh pool for the admin side after each outage (its connections died with the server). */
async function reconnectAdmin(): Promise<void> {
  await admin.destroy();
  admin = createKnex(pg.url('enrich'), 2);
}

let scenario = '';

function expectUnavailable(res: Timed, bound = BOUND_MS): void {
  record(scenario, res.ms);
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.ms).toBeLessThan(bound);
}

/** Requests of every kind while the database is out. */
async function duringOutage(bound = BOUND_MS): Promise<void> {
  const health = await timed(`${svc.url}/health`);
  expect(health.status).toBe(200);
  expect(health.ms).toBeLessThan(MARGIN_MS);

  const ready = await timed(`${svc.url}/health/ready`);
  expectUnavailable(ready, READINESS_TIMEOUT_MS + MARGIN_MS);

  // A key the server verified before the outage: authentication needs no query, the operation does.
  expectUnavailable(await timed(`${svc.url}/account`, bearer(cachedKey)), bound);
  expectUnavailable(await timed(`${svc.url}/person?username=${username}`, bearer(cachedKey)), bound);
  // Matching (issue 33): one query, and a bulk whose first failing query ends the batch.
  const post = (body: unknown) => ({ method: 'POST', headers: { ...bearer(cachedKey).headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expectUnavailable(await timed(`${svc.url}/person/match`, post({ name: 'Priya Raman', company: 'Northwind Analytics' })), bound);
  expectUnavailable(await timed(`${svc.url}/people/bulk-match`, post({ queries: Array.from({ length: 100 }, () => ({ name: 'Priya Raman', company: 'Northwind' })) })), bound);
  // A key never seen: authentication itself needs the database.
  expectUnavailable(await timed(`${svc.url}/account`, bearer(coldKey)), bound);
  // A list job's upload and list (issue 34): the same answer, nothing half-stored.
  expectUnavailable(await timed(`${svc.url}/jobs`, { method: 'POST', body: 'email\na@b.example\n', headers: { ...bearer(cachedKey).headers, 'Content-Type': 'text/csv' } }), bound);
  expectUnavailable(await timed(`${svc.url}/jobs`, bearer(cachedKey)), bound);
  // Several at once: the pool's waiting requests are bounded too.
  const burst = await Promise.all(Array.from({ length: 30 }, () => timed(`${svc.url}/account`, bearer(cachedKey))));
  for (const res of burst) expectUnavailable(res, bound);
}

async function recovers(): Promise<void> {
  const back = await eventually(async () => (await timed(`${svc.url}/health/ready`)).status === 200, 30_000);
  expect(back).toBe(true);
  expect((await timed(`${svc.url}/account`, bearer(cachedKey))).status).toBe(200);
  expect((await timed(`${svc.url}/person?username=${username}`, bearer(cachedKey))).status).toBe(200);
  // The in-process list job worker survived the outage: a job submitted now completes.
  const job = await timed(`${svc.url}/jobs`, { method: 'POST', body: `username\n${username}\n`, headers: { ...bearer(cachedKey).headers, 'Content-Type': 'text/csv' } });
  expect(job.status).toBe(202);
  const id = (job.body as unknown as { job: { id: string } }).job.id;
  const done = await eventually(async () => ((await timed(`${svc.url}/jobs/${id}`, bearer(cachedKey))).body as unknown as { job: { status: string } }).job.status === 'completed', 60_000);
  expect(done).toBe(true);
}

describe('PostgreSQL outages, the service running throughout', () => {
  it('works before any fault', async () => {
    expect((await timed(`${svc.url}/account`, bearer(cachedKey))).status).toBe(200);
    const ready = await timed(`${svc.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'up', redis: 'not_configured' });
  });

  it('a stopped database: 503 SERVICE_UNAVAILABLE with Retry-After at once, liveness still 200, recovery without a restart', async () => {
    scenario = 'stopped database';
    await pg.stop();
    await duringOutage();
    await pg.up();
    await recovers();
    await reconnectAdmin();
  });

  it('a crashed database (every process killed): the same, and back after crash recovery', async () => {
    scenario = 'crashed database';
    await pg.kill();
    await duringOutage();
    await pg.up();
    await recovers();
    await reconnectAdmin();
  });

  it('a stalled database (SIGSTOP): answers within the statement and acquire timeouts, then recovery on SIGCONT', async () => {
    scenario = 'stalled database (SIGSTOP)';
    pg.pause();
    try {
      await duringOutage();
    } finally {
      pg.resume();
    }
    await recovers();
  });

  it('a revocation after an outage longer than a second takes effect at once, not after the cache TTL', async () => {
    // The channel listens again after the earlier outages (it reconnects with backoff)...
    const listening = () => svc.logs().lastIndexOf('auth change channel listening again') >= svc.logs().lastIndexOf('auth change channel lost');
    expect(await eventually(async () => listening(), 30_000)).toBe(true);
    // ...and the key is cached by the server (TTL 120 s).
    expect((await timed(`${svc.url}/account`, bearer(coldKey))).status).toBe(200);
    const from = svc.logs().length;
    await pg.stop();
    await sleep(3000);
    await pg.up();
    await reconnectAdmin();
    // The server says it listens again (the channel reconnects with backoff, forever).
    await svc.waitForLog(/auth change channel listening again/, 30_000, from);
    await revokeKey(admin, coldKey);
    const refused = await eventually(async () => (await timed(`${svc.url}/account`, bearer(coldKey))).status === 401, 5000);
    expect(refused).toBe(true);
    expect(svc.logs().slice(from)).toMatch(/auth change channel lost/);
  });
});
