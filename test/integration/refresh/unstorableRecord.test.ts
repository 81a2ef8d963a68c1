/**
 * Issue 32, rows 7 and 8: one record from the live source that PostgreSQL cannot store stops
 * nothing. The source is real: the simulator on loopback behind a proxy that alters some of its
 * records (startRewriter) into what the contract accepts and the database refuses: a lone surrogate
 * (`\ud800`), a NUL (`\u0000`), a head count beyond the column's range. Through the real http
 * adapter and policy, on every write path: a refresh round (the rest of the batch re-verified, the
 * bad record marked with a short reason, counted in /metrics, asked again on its own schedule), a
 * realtime call (a documented 503 naming the record's field, not metered), an import (a short
 * reason, never the statement).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { findRefusal } from '../../../src/db/repositories/refreshQueue';
import { importFile } from '../../../src/domain/lake/importer';
import { RefreshWorker } from '../../../src/jobs/refreshWorker';
import { recordValidator } from '../../../src/http/recordSchemas';
import { Metrics } from '../../../src/observability/metrics';
import { createWorld, defaultAsOf } from '../../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../../src/world/simulator/server';
import { Simulator } from '../../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import { closeSources, httpSource, loadWorld, startRewriter, SwitchableSource, TEST_POLICY, type Rewriter } from '../../helpers/live';

const WORLD = { persons: 30, companies: 5, seed: 3232, asOf: defaultAsOf() };
const world = createWorld(WORLD);
const N = WORLD.persons + WORLD.companies;
const silent = pino({ level: 'silent' });

const lake = useLakeWorld();
let sim: Simulator;
let server: SimulatorServer;
let rewriter: Rewriter;
let h: Harness;
let key: string;
let workspaceId: string;
/** What the rewriter does to a record, by username; empty: the source's records as they are. */
const bad = new Map<string, (record: Record<string, unknown>) => Record<string, unknown>>();

const LONE = world.person(2).username;
const NUL = world.person(5).username;
const HUGE = [...world.companyRecords()][1]!.username;

beforeAll(async () => {
  await loadWorld(lake.h.knex, world, WORLD.persons);
  sim = new Simulator({ world: WORLD, speed: 0 });
  server = await startSimulatorServer(sim);
  rewriter = await startRewriter(server.protocolUrl, (record) => bad.get(record.username as string)?.(record) ?? record);
  const source = new SwitchableSource(httpSource(rewriter.url));
  h = await createHarness({ databaseUrl: lake.url, liveSource: source, config: { live: { ...loadConfig({}).live, timeoutMs: TEST_POLICY.timeoutMs } } });
  ({ key, workspaceId } = await h.workspace({ rateLimit: 100_000 }));
}, 120_000);

lake.beforeClose(async () => {
  await h?.close();
  await closeSources();
  await rewriter?.close();
  await server?.close();
});

beforeEach(() => {
  bad.clear();
  bad.set(LONE, (r) => ({ ...r, headline: `${r.headline as string} \ud800` }));
  bad.set(NUL, (r) => ({ ...r, skills: (r.skills as { name: string }[]).map((s, i) => (i === 0 ? { ...s, name: 'C\u0000C++' } : s)) }));
  bad.set(HUGE, (r) => ({ ...r, staff_count: 10 ** 12 }));
});

const dbNow = async () => (await lake.h.knex.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
const idOf = async (table: 'persons' | 'companies', username: string) => (await lake.h.knex(table).where({ username }).first('id'))!.id as string;
const fetchedAt = async (table: 'persons' | 'companies') =>
  new Map((await lake.h.knex(table).select('username', 'fetched_at')).map((r) => [r.username as string, (r.fetched_at as Date).getTime()]));
const refusedMetric = async (metrics: Metrics) => {
  const values = (await metrics.registry.getSingleMetric('enrich_refresh_records_total')!.get()).values;
  return Object.fromEntries(values.filter((v) => v.labels.outcome === 'refused').map((v) => [v.labels.kind, v.value]));
};

describe('a refresh batch holding records the database cannot store', () => {
  it('re-verifies the rest, marks each bad record with a short reason, counts it, and asks for it again on its own schedule', async () => {
    const metrics = new Metrics();
    try {
      const config = { ...loadConfig({}).refresh, batchSize: 50, leaseSeconds: 60, minAgeSeconds: 0, watchedMinAgeSeconds: 0 };
      const worker = new RefreshWorker({ db: lake.h.knex, source: httpSource(rewriter.url), config, logger: silent, metrics });
      const started = await dbNow();
      const report = await worker.runRound({ dueBefore: started });
      // One round over everything: the persons' batch holds two bad records, the companies' one.
      expect(report).toMatchObject({ claimed: N, refused: 3, unavailable: 0 });
      expect(report.changed + report.unchanged).toBe(N - 3);
      const persons = await fetchedAt('persons');
      const companies = await fetchedAt('companies');
      for (const [username, at] of [...persons, ...companies]) {
        if ([LONE, NUL, HUGE].includes(username)) expect({ username, moved: at >= started.getTime() }).toEqual({ username, moved: false });
        else expect({ username, moved: at >= started.getTime() - 1000 }).toEqual({ username, moved: true });
      }
      // Marked, each with a short reason naming where; never the statement.
      const reasons = {
        lone: (await findRefusal(lake.h.knex, 'person', await idOf('persons', LONE)))?.reason,
        nul: (await findRefusal(lake.h.knex, 'person', await idOf('persons', NUL)))?.reason,
        huge: (await findRefusal(lake.h.knex, 'company', await idOf('companies', HUGE)))?.reason,
      };
      expect(reasons.lone).toBe('headline contains a lone surrogate (U+D800), which the database cannot store');
      expect(reasons.nul).toBe('skills[0].name contains the NUL character (U+0000), which the database cannot store');
      expect(reasons.huge).toMatch(/^SQLSTATE 22003\b.*out of range/);
      for (const reason of Object.values(reasons)) {
        expect(reason!.length).toBeLessThan(300);
        expect(reason).not.toMatch(/insert into|select /i);
      }
      expect(await refusedMetric(metrics)).toEqual({ person: 2, company: 1 });
      // At the back of the queue, like every record checked in this round: not the oldest due,
      // so a round over what was due before it took nothing again.
      const queue = await lake.h.knex('person_refresh').where('person_id', await idOf('persons', LONE)).first('checked_at', 'lease_token');
      expect(queue.checked_at.getTime()).toBeGreaterThanOrEqual(started.getTime());
      expect(queue.lease_token).toBeNull();
      expect((await worker.runRound({ dueBefore: started })).claimed).toBe(0);

      // Its own schedule: the next round asks again; once the source serves a storable copy, it is
      // written and the mark no longer stands.
      bad.clear();
      const next = await worker.runRound({ dueBefore: await dbNow() });
      expect(next).toMatchObject({ claimed: N, refused: 0 });
      expect(next.changed + next.unchanged).toBe(N);
      expect(await findRefusal(lake.h.knex, 'person', await idOf('persons', LONE))).toBeUndefined();
      expect(await findRefusal(lake.h.knex, 'company', await idOf('companies', HUGE))).toBeUndefined();
    } finally {
      metrics.close();
    }
  });
});

describe('realtime on a record the database cannot store', () => {
  const usage = async () =>
    Number((await h.knex('realtime_usage').where('workspace_id', workspaceId).count<{ count: number }[]>({ count: '*' }))[0]!.count);
  const realtime = (p: string) => h.send(h.http.get(p).set('Authorization', `Bearer ${key}`));

  it('answers 503 LIVE_SOURCE_UNAVAILABLE naming the source\'s record and the field, not metered; the lake copy stays', async () => {
    for (const [username, field] of [[LONE, 'headline'], [NUL, 'skills\\[0\\]\\.name']] as const) {
      const before = (await h.get(`/api/v1/person?username=${username}`, key)).body.data;
      const used = await usage();
      const res = await realtime(`/api/v1/person/realtime?username=${username}&max_age=0`);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('LIVE_SOURCE_UNAVAILABLE');
      expect(res.body.error).toMatch(new RegExp(`live source's record for this profile cannot be stored \\(${field} contains`));
      expect(await usage()).toBe(used);
      expect((await h.get(`/api/v1/person?username=${username}`, key)).body.data).toEqual(before);
    }
  });

  it('a value a column refuses (found by the database, not by the text rule): the same 503, not a 400 blaming the caller', async () => {
    const used = await usage();
    const res = await realtime(`/api/v1/company/realtime?username=${HUGE}&max_age=0`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('LIVE_SOURCE_UNAVAILABLE');
    expect(res.body.error).toMatch(/live source's record for this company cannot be stored \(a value the database refuses\)/);
    expect(res.body.error).not.toMatch(/SQLSTATE|insert/i);
    expect(await usage()).toBe(used);
  });
});

describe('an import holding such records', () => {
  it('reports each bad line with a short reason, never the SQL statement, and imports the rest', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unstorable-'));
    try {
      const good = [companyRecord(), companyRecord(), companyRecord()];
      const file = path.join(dir, 'companies.ndjson');
      const lines = [good[0], { ...companyRecord(), staff_count: 10 ** 12 }, good[1], { ...companyRecord(), description: 'a \ud800 b' }, good[2]];
      fs.writeFileSync(file, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const report = await importFile(lake.h.knex, { kind: 'company', file, lanes: 1, batchSize: 10, validate: recordValidator('CompanyResult') });
      expect(report).toMatchObject({ written: 3, invalid: 2 });
      // Line 4 is refused as it is read (the text rule), line 2 when its batch is written.
      const errors = [...report.errors].sort((a, b) => a.line - b.line);
      expect(errors.map((e) => e.line)).toEqual([2, 4]);
      expect(errors[0]!.reason).toMatch(/^the database cannot store this record: SQLSTATE 22003\b/);
      expect(errors[1]!.reason).toBe('description contains a lone surrogate (U+D800), which the database cannot store');
      for (const e of report.errors) {
        expect(e.reason.length).toBeLessThan(300);
        expect(e.reason).not.toMatch(/insert into|select /i);
      }
      const persons = path.join(dir, 'persons.ndjson');
      fs.writeFileSync(persons, [personRecord(), { ...personRecord(), headline: '\udc00 alone' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
      const personReport = await importFile(lake.h.knex, { kind: 'person', file: persons, lanes: 1, validate: recordValidator('PersonResult') });
      expect(personReport).toMatchObject({ written: 1, invalid: 1, errors: [{ line: 2, reason: 'headline contains a lone surrogate (U+DC00), which the database cannot store' }] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
