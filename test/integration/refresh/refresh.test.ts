/**
 * The background refresh against the simulator on loopback: a lake loaded with the simulator's
 * whole world, simulated time moved forward, refresh rounds run by real workers. Expected changes
 * are computed here in plain JS from the two copies of each record (never by the code under test).
 */
import { spawn } from 'node:child_process';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { createKnex } from '../../../src/db/knex';
import type { CompanyRecord, PersonRecord } from '../../../src/model/records';
import * as claim from '../../../src/db/repositories/refreshQueue';
import { HttpLiveSource } from '../../../src/domain/live/httpSource';
import { ResilientSource } from '../../../src/domain/live/resilience';
import { recordValidator } from '../../../src/http/recordSchemas';
import { suppress } from '../../../src/domain/lake/suppression';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import { Metrics } from '../../../src/observability/metrics';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { ENRICH_BIN } from '../../helpers/cli';
import { eventually, httpSource, loadWorld, startSimulatorProcess, closeSources } from '../../helpers/live';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { SERVED_RECORD } from '../../helpers/lakeRecords';

const asOf = defaultAsOf();
const WORLD = { persons: 150, companies: 15, seed: 8080, asOf };
const RATES = { job: 0.003, title: 0.003, location: 0.003, headcount: 0.01, name: 0.005, hq: 0.005, industry: 0.005 };
const DAY = 86_400;
const world = createWorld(WORLD);
const N = WORLD.persons + WORLD.companies;
const silent = pino({ level: 'silent' });

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
  server = await startSimulatorServer(sim);
}, 120_000);

afterAll(async () => {
  await closeSources();
  await server?.close();
});

function worker(db = lake.h.knex, url = server.protocolUrl, overrides: Partial<ReturnType<typeof loadConfig>['refresh']> = {}) {
  const config = { ...loadConfig({}).refresh, batchSize: 40, leaseSeconds: 30, minAgeSeconds: 0, watchedMinAgeSeconds: 0, ...overrides };
  return new RefreshWorker({ db, source: httpSource(url), config, logger: silent });
}

const dbNow = async () => (await lake.h.knex.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
const storedPersons = async () =>
  new Map((await lake.h.knex('persons').select('id', lake.h.knex.raw(`${SERVED_RECORD} as record`))).map((r) => [r.id, JSON.parse(r.record) as PersonRecord]));
const storedCompanies = async () =>
  new Map((await lake.h.knex('companies').select('id', lake.h.knex.raw(`${SERVED_RECORD} as record`))).map((r) => [r.id, JSON.parse(r.record) as CompanyRecord]));
const entriesSince = async (afterId: number) => lake.h.knex('change_log').where('id', '>', afterId).orderBy('id');
const lastEntryId = async () => Number((await lake.h.knex('change_log').max<{ max: number }[]>({ max: 'id' }))[0]!.max ?? 0);

/** What the diff must find between the lake and the source, by plain field comparison. */
function expectedEvents(persons: Map<string, PersonRecord>, companies: Map<string, CompanyRecord>): string[] {
  const out: string[] = [];
  for (const [id, old] of persons) {
    const now = sim.person(old.username)!;
    if (old.current_company_id !== now.current_company_id) out.push(`${id} person.job_changed`);
    else if (old.current_title !== now.current_title) out.push(`${id} person.title_changed`);
    if (old.geo_city !== now.geo_city || old.geo_country_code !== now.geo_country_code) out.push(`${id} person.location_changed`);
  }
  for (const [id, old] of companies) {
    const now = sim.company({ username: old.username })!;
    if (old.staff_count !== now.staff_count) out.push(`${id} company.headcount_changed`);
    if (old.name !== now.name) out.push(`${id} company.name_changed`);
    if (old.hq_city !== now.hq_city || old.hq_country_code !== now.hq_country_code) out.push(`${id} company.hq_changed`);
    if ([...old.industries].sort().join() !== [...now.industries].sort().join()) out.push(`${id} company.industry_changed`);
  }
  return out.sort();
}

describe('the refresh', () => {
  it('detects each change exactly once, every change type, in one round over every record', async () => {
    sim.advance(200 * DAY);
    const expected = expectedEvents(await storedPersons(), await storedCompanies());
    const types = new Set(expected.map((e) => e.split(' ')[1]));
    expect([...types].sort()).toEqual([
      'company.headcount_changed', 'company.hq_changed', 'company.industry_changed', 'company.name_changed',
      'person.job_changed', 'person.location_changed', 'person.title_changed',
    ]);
    const after = await lastEntryId();
    const w = worker();
    const report = await w.runRound({ dueBefore: await dbNow() });
    expect(report.claimed).toBe(N);
    expect(report.changed + report.unchanged).toBe(N);
    const entries = await entriesSince(after);
    expect(entries.map((e) => `${e.subject_id} ${e.event}`).sort()).toEqual(expected);
    expect(entries.every((e) => e.origin === 'refresh')).toBe(true);
    // Diffs as the webhooks carry them.
    const job = entries.find((e) => e.event === 'person.job_changed')!;
    const now = sim.person((await lake.h.knex('persons').where({ id: job.subject_id }).first('username')).username)!;
    expect(job.diff).toMatchObject({ new_company_id: now.current_company_id, new_company: now.current_company, new_title: now.current_title });
    // The lake now holds the source's copies.
    for (const [, p] of await storedPersons()) expect({ ...p, fetched_at: '' }).toEqual({ ...sim.person(p.username)!, fetched_at: '' });
  });

  it('an unchanged record: only fetched_at moves, nothing is logged', async () => {
    const after = await lastEntryId();
    const before = await storedPersons();
    const positionsBefore = await lake.h.knex('person_positions').count<{ count: number }[]>({ count: '*' });
    const started = await dbNow();
    const report = await worker().runRound({ dueBefore: started });
    expect(report).toMatchObject({ claimed: N, changed: 0, unchanged: N, changes: 0 });
    expect(await entriesSince(after)).toEqual([]);
    for (const [id, p] of await storedPersons()) {
      expect({ ...p, fetched_at: '' }).toEqual({ ...before.get(id)!, fetched_at: '' });
      expect(new Date(p.fetched_at).getTime()).toBeGreaterThanOrEqual(started.getTime() - 1000);
    }
    expect(await lake.h.knex('person_positions').count<{ count: number }[]>({ count: '*' })).toEqual(positionsBefore);
  });

  it('job changes and hiring signals reflect refreshed records', async () => {
    const entry = await lake.h.knex('change_log').where({ event: 'person.job_changed', origin: 'refresh' }).first();
    const changes = await lake.h.get('/api/v1/person/job-changes?within_months=24&per_page=100', lake.key);
    expect(changes.status).toBe(200);
    expect(changes.body.results.map((r: { id: string }) => r.id)).toContain(entry.subject_id);
    const signals = await lake.h.get(
      `/api/v1/company/hiring-signals?company_id=${entry.diff.new_company_id}&within_months=24&per_page=100`,
      lake.key,
    );
    expect(signals.body.results.map((r: { id: string }) => r.id)).toContain(entry.subject_id);
  });

  it('two workers racing over the same records refresh each once per round, and log each change once', async () => {
    sim.advance(100 * DAY);
    const expected = expectedEvents(await storedPersons(), await storedCompanies());
    const after = await lastEntryId();
    const records = sim.stats.records;
    const [db1, db2] = [createKnex(lake.url, 3), createKnex(lake.url, 3)];
    try {
      const dueBefore = await dbNow();
      const [a, b] = await Promise.all([worker(db1, undefined, { batchSize: 10 }).runRound({ dueBefore }), worker(db2, undefined, { batchSize: 10 }).runRound({ dueBefore })]);
      expect(a.claimed + b.claimed).toBe(N);
      expect(a.claimed).toBeGreaterThan(0);
      expect(b.claimed).toBeGreaterThan(0);
      expect(sim.stats.records - records).toBe(N);
      const entries = await entriesSince(after);
      expect(entries.map((e) => `${e.subject_id} ${e.event}`).sort()).toEqual(expected);
    } finally {
      await db1.destroy();
      await db2.destroy();
    }
  });

  it('a worker SIGKILLed mid-batch leaves leases that expire; its records are refreshed by another worker', async () => {
    const args = ['--persons', String(WORLD.persons), '--companies', String(WORLD.companies), '--seed', String(WORLD.seed),
      '--as-of', asOf.toISOString().slice(0, 10), '--speed', '0', '--latency-ms', '60000'];
    const slow = await startSimulatorProcess(args);
    const LEASE = 3;
    const child = spawn(process.execPath, [ENRICH_BIN, 'worker'], {
      stdio: 'ignore',
      env: {
        ...process.env,
        DATABASE_URL: lake.url,
        LIVE_SOURCE_URL: slow.protocolUrl,
        LIVE_SOURCE_BATCH_TIMEOUT_MS: '120000',
        REFRESH_LEASE_SECONDS: String(LEASE),
        REFRESH_MIN_AGE_SECONDS: '0',
        REFRESH_BATCH: '25',
        LOG_LEVEL: 'silent',
      },
    });
    try {
      const leased = await eventually(async () => {
        const rows = await lake.h.knex('person_refresh').where('lease_until', '>', lake.h.knex.fn.now()).select('person_id');
        return rows.length ? rows.map((r) => r.person_id as string) : undefined;
      }, 60_000, 50);
      const killedAt = await dbNow();
      child.kill('SIGKILL');
      // Nothing of the batch was written; its rows stay leased until the lease expires, then they are due.
      await eventually(async () => {
        const held = await lake.h.knex('person_refresh').whereIn('person_id', leased).andWhere('lease_until', '>', lake.h.knex.fn.now());
        return held.length === 0;
      }, LEASE * 1000 + 10_000, 100);
      const report = await worker().runRound({ dueBefore: killedAt, kinds: ['person'] });
      expect(report.claimed).toBeGreaterThanOrEqual(leased.length);
      const rows = await lake.h.knex('person_refresh').whereIn('person_id', leased).select('checked_at', 'lease_token');
      for (const r of rows) {
        expect(r.lease_token).toBeNull();
        expect(new Date(r.checked_at).getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
      }
    } finally {
      child.kill('SIGKILL');
      await slow.stop();
    }
  }, 120_000);

  it('a withdrawn subject is never refreshed, re-created or logged, and its old entries keep no personal data', async () => {
    const entry = await lake.h.knex('change_log').where({ kind: 'person', origin: 'refresh' }).whereNotNull('subject_id').first();
    const id = entry.subject_id as string;
    const username = (await lake.h.knex('persons').where({ id }).first('username')).username;
    await suppress(lake.h.knex, 'person', { by: 'id', value: id });
    expect(await lake.h.knex('change_log').where({ subject_id: id })).toEqual([]);
    const redacted = await lake.h.knex('change_log').where({ id: entry.id }).first();
    expect(redacted).toMatchObject({ subject_id: null, diff: null });
    expect(redacted.redacted_at).not.toBeNull();

    sim.advance(300 * DAY);
    const after = await lastEntryId();
    await worker().runRound({ dueBefore: await dbNow() });
    expect(await lake.h.knex('persons').where({ id }).first()).toBeUndefined();
    expect(await lake.h.knex('persons').where({ username }).first()).toBeUndefined();
    expect((await entriesSince(after)).filter((e) => e.subject_id === id)).toEqual([]);
  });

  it('an import that changes a record logs its changes the same way', async () => {
    const [p] = (await lake.h.knex('persons').select(lake.h.knex.raw(`${SERVED_RECORD} as record`)).limit(1)).map((r) => JSON.parse(r.record) as PersonRecord);
    const after = await lastEntryId();
    await writeRecords(lake.h.knex, 'person', [{ ...p!, geo_city: 'Imported City' }]);
    const entries = await entriesSince(after);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ event: 'person.location_changed', origin: 'import', subject_id: p!.id, diff: { new_city: 'Imported City' } });
    // The same import again changes nothing and logs nothing.
    await writeRecords(lake.h.knex, 'person', [{ ...p!, geo_city: 'Imported City' }]);
    expect(await entriesSince(after)).toHaveLength(1);
  });

  it('watched records come first, and a source outage leaves every claimed record due again', async () => {
    const [b] = await lake.h.knex('persons').orderBy('fetched_at', 'desc').limit(1).select('id');
    // `b` was verified most recently: alone it would come last. Watched, it comes first.
    await lake.h.knex('person_refresh').where({ person_id: b!.id }).update({ watchers: 1 });
    const w = worker(undefined, undefined, { batchSize: 1 });
    const dueBefore = await dbNow();
    const first = await claim.claimDue(lake.h.knex, 'person', { token: '00000000-0000-4000-8000-000000000001', limit: 1, leaseSeconds: 30, dueBefore, watchedDueBefore: dueBefore });
    expect(first.map((r) => r.id)).toEqual([b!.id]);
    await claim.releaseLeases(lake.h.knex, 'person', '00000000-0000-4000-8000-000000000001', [b!.id]);

    sim.setFaults({ outage: true });
    try {
      const report = await w.runRound({ dueBefore, kinds: ['person'] });
      expect(report.unavailable).toBeGreaterThan(0);
      expect(await lake.h.knex('person_refresh').whereNotNull('lease_token')).toEqual([]);
    } finally {
      sim.setFaults({ outage: false });
    }
  });

  it('reports refreshes, changes and source calls on /metrics', async () => {
    sim.advance(50 * DAY);
    const metrics = new Metrics();
    const config = { ...loadConfig({}).refresh, batchSize: 50, minAgeSeconds: 0, watchedMinAgeSeconds: 0 };
    const raw = new HttpLiveSource({
      url: server.protocolUrl,
      connections: 4,
      timeoutMs: 5000,
      validatePerson: recordValidator('PersonResult'),
      validateCompany: recordValidator('CompanyResult'),
    });
    const source = new ResilientSource(
      raw,
      { timeoutMs: 1000, batchTimeoutMs: 5000, concurrency: 4, queue: 10, breakerThreshold: 3, breakerCooldownMs: 500 },
      metrics.source,
    );
    const w = new RefreshWorker({ db: lake.h.knex, source, config, logger: silent, metrics });
    const report = await w.runRound({ dueBefore: await dbNow() });
    await source.close();
    const text = await metrics.registry.metrics();
    const value = (re: RegExp) => [...text.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
    expect(value(/^enrich_refresh_records_total\{[^}]*outcome="(?:changed|unchanged)"[^}]*\} ([0-9]+)$/gm)).toBe(report.changed + report.unchanged);
    expect(value(/^enrich_change_log_entries_total\{[^}]*\} ([0-9]+)$/gm)).toBe(report.changes);
    expect(text).toMatch(/^enrich_live_source_duration_seconds_count\{operation="persons",outcome="ok"\} [1-9]/m);
  });
});
