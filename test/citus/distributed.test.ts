/**
 * The lake on a real Citus cluster (issue 21): a coordinator and two workers started here
 * (cluster.ts), migrated, laid out by `enrich distribute` (db/citusLayout.ts), seeded with a small
 * world; then the operations over HTTP (every response checked against the contract by the
 * harness), the EXPLAIN gate of the routing, import, refresh with two workers, realtime
 * write-back, and a stopped worker. Where the citus extension is not installed for the machine's
 * PostgreSQL 15 (CI), the lane says why and skips.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { applyDistributedLayout } from '../../src/db/citusLayout';
import { createKnex, migrateLatest, type Knex } from '../../src/db/knex';
import type { PersonRecord } from '../../src/model/records';
import { WALK_IN_ORDER } from '../../src/db/repositories/people';
import { countMatches } from '../../src/db/repositories/personHits';
import { importFile } from '../../src/domain/lake/importer';
import { writeRecords } from '../../src/domain/lake/write/writer';
import { connectionOf, STAGING_MIN_RECORDS } from '../../src/db/repositories/staging';
import { reclaimWithdrawnSpace, suppress } from '../../src/domain/lake/suppression';
import { recordValidator } from '../../src/http/recordSchemas';
import { RefreshWorker } from '../../src/jobs/refreshWorker';
import { createWorld, defaultAsOf } from '../../src/world';
import { startSimulatorServer, type SimulatorServer } from '../../src/world/simulator/server';
import { Simulator } from '../../src/world/simulator/simulator';
import { createHarness, type Harness } from '../helpers/harness';
import { closeSources, eventually, httpSource, loadWorld } from '../helpers/live';
import { newestFirstPositions } from '../helpers/lakeWorld';
import { preparedDuring } from '../helpers/queries';
import { citusUnavailable, startCitusCluster, type CitusCluster } from './cluster';

const why = citusUnavailable();
if (why) console.warn(`Citus lane skipped: ${why}`);
const lane = why ? describe.skip : describe;

const DAY = 86_400;
const SHARDS = 8;
const WORLD = { persons: 120, companies: 12, seed: 2121, asOf: defaultAsOf() };
/** The lake holds the first LOADED persons; the source knows them all (realtime write-back). */
const LOADED = 100;
const RATES = { job: 0.003, title: 0.003, location: 0.003, headcount: 0.01, name: 0.005, hq: 0.005, industry: 0.005 };
const world = createWorld(WORLD);

/** The `Task Count` of a distributed plan: the number of shards the statement is sent to. */
async function taskCount(db: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<number> {
  const { rows } = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(`explain ${sql}`, bindings);
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
  const m = /Task Count: (\d+)/.exec(plan);
  if (!m) throw new Error(`not a distributed plan:\n${plan}`);
  return Number(m[1]);
}

lane('the lake on Citus: a coordinator and two workers', () => {
  let cluster: CitusCluster;
  let h: Harness;
  let key: string;
  let sim: Simulator;
  let server: SimulatorServer;
  let persons: PersonRecord[];
  // Made in beforeAll: a skipped lane still runs this body (to list its tests), never its hooks.
  let tmp: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-citus-lane-'));
    cluster = await startCitusCluster();
    const knex = createKnex(cluster.url, 4);
    try {
      await migrateLatest(knex);
      await applyDistributedLayout(knex, { shardCount: SHARDS });
      persons = (await loadWorld(knex, world, LOADED)).persons;
    } finally {
      await knex.destroy();
    }
    sim = new Simulator({ world: WORLD, speed: 0, rates: RATES });
    server = await startSimulatorServer(sim);
    h = await createHarness({ databaseUrl: cluster.url, liveSource: httpSource(server.protocolUrl) });
    key = (await h.workspace({ rateLimit: 100_000 })).key;
  }, 900_000);

  afterAll(async () => {
    await h?.close();
    await closeSources();
    await server?.close();
    cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 300_000);

  const placement = async (id: string): Promise<number> => {
    const { rows } = await h.knex.raw<{ rows: { port: number }[] }>(
      `select nodeport as port from citus_shards
       where table_name = 'persons'::regclass and shardid = get_shard_id_for_distribution_column('persons', ?::uuid)`,
      [id],
    );
    return rows[0]!.port;
  };

  it('enrich distribute laid out the tables, and running it again changes nothing', async () => {
    const { rows } = await h.knex.raw<{ rows: { table: string; method: string; colocation: number }[] }>(
      'select logicalrelid::text as table, partmethod as method, colocationid as colocation from pg_dist_partition order by 1',
    );
    const by = new Map(rows.map((r) => [r.table, r]));
    for (const t of ['persons', 'person_positions', 'person_educations', 'person_refresh', 'lake_identifiers']) expect(by.get(t)?.method).toBe('h');
    for (const t of ['companies', 'company_refresh']) expect(by.get(t)?.method).toBe('n');
    // Co-located with persons: a record, its index rows and its queue row on one shard.
    for (const t of ['person_positions', 'person_educations', 'person_refresh']) expect(by.get(t)!.colocation).toBe(by.get('persons')!.colocation);
    // The control plane stays on the coordinator.
    for (const t of ['workspaces', 'api_keys', 'monitors', 'monitor_deliveries', 'suppressions', 'change_log']) expect(by.has(t)).toBe(false);
    expect((await applyDistributedLayout(h.knex)).steps).toEqual([]);
  });

  it('answers every lake operation, inside the contract', async () => {
    const p = persons.find((x) => x.current_company_id && x.educations?.some((e) => e.schoolName))!;
    const company = world.companyRecords().next().value as { company_id: string; username: string };
    const school = p.educations.find((e) => e.schoolName)!.schoolName;
    const gets = [
      '/api/v1/health',
      '/api/v1/health/ready',
      '/api/v1/account',
      `/api/v1/person?username=${p.username}`,
      `/api/v1/person?id=${p.id}`,
      `/api/v1/person?network_url=${encodeURIComponent(`https://www.linkedin.com/in/${p.username}`)}`,
      `/api/v1/person/check?username=${p.username}`,
      `/api/v1/person/similar?id=${p.id}`,
      `/api/v1/person/colleagues?username=${p.username}`,
      '/api/v1/person/job-changes?within_months=24',
      `/api/v1/institution/alumni?school=${encodeURIComponent(school)}`,
      `/api/v1/company?company_id=${company.company_id}`,
      `/api/v1/company?username=${company.username}`,
      `/api/v1/company/check?company_id=${company.company_id}`,
      `/api/v1/company/current-employees?company_id=${p.current_company_id}`,
      `/api/v1/company/past-employees?company_id=${p.current_company_id}`,
      `/api/v1/company/headcount-by-seniority?company_id=${p.current_company_id}`,
      `/api/v1/company/hiring-signals?company_id=${p.current_company_id}&within_months=24`,
      `/api/v1/company/decision-makers?company_id=${p.current_company_id}`,
      `/api/v1/person/realtime?username=${p.username}`,
      `/api/v1/company/realtime?company_id=${company.company_id}`,
      '/api/v1/monitors',
      '/api/v1/workspace/keys',
      '/api/v1/workspace/usage',
    ];
    const failed: string[] = [];
    for (const url of gets) {
      const res = await h.get(url, key);
      if (res.status >= 300) failed.push(`GET ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const posts: [string, unknown][] = [
      ['/api/v1/people/search', { title: 'engineer' }],
      ['/api/v1/people/search', { query: p.full_name.split(' ')[0] }],
      ['/api/v1/people/bulk', { ids: persons.slice(0, 5).map((x) => x.id) }],
      ['/api/v1/people/bulk-enrich', { profiles: persons.slice(0, 5).map((x) => ({ username: x.username })) }],
      ['/api/v1/companies/search', { name: 'a' }],
      ['/api/v1/monitors', { type: 'person', subject_url: `https://www.linkedin.com/in/${p.username}`, webhook_url: 'https://93.184.215.14/hook' }],
    ];
    for (const [url, body] of posts) {
      const res = await h.post(url, body, key);
      if (res.status >= 300) failed.push(`POST ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failed).toEqual([]);
  });

  it('routes a lookup by every identifier to one shard (EXPLAIN), where a plain column lookup fans out', async () => {
    const p = persons.find((x) => x.network_id && x.network_urn)!;
    for (const [column, value] of [
      ['username', p.username],
      ['network_id', p.network_id!],
      ['network_urn', p.network_urn!],
    ] as const) {
      expect(await taskCount(h.knex, 'select subject_id from lake_identifiers where value = ? and kind = ?', [value, `person:${column}`])).toBe(1);
    }
    expect(await taskCount(h.knex, 'select record::text from persons where id = ?', [p.id])).toBe(1);
    // Companies are a reference table: any lookup is one task on one node.
    const c = world.companyRecords().next().value as { company_id: string; username: string };
    expect(await taskCount(h.knex, 'select record::text from companies where company_id = ?', [c.company_id])).toBe(1);
    expect(await taskCount(h.knex, 'select record::text from companies where username = ?', [c.username])).toBe(1);
    // What the identifier table avoids: the same lookup on the persons column goes to every shard.
    expect(await taskCount(h.knex, 'select record::text from persons where username = ?', [p.username])).toBe(SHARDS);
    // And the service really takes the routed path: the identifier table, then the record by id.
    const seen = await preparedDuring(h.knex, async () => expect((await h.get(`/api/v1/person?username=${p.username}`, key)).status).toBe(200));
    expect(seen).toEqual(expect.arrayContaining([expect.stringMatching(/from lake_identifiers where value = \$1/)]));
  });

  it("the search's planner hints (SET LOCAL) reach the workers", async () => {
    const plan = (hinted: boolean) =>
      h.knex.transaction(async (trx) => {
        if (hinted) await trx.raw(WALK_IN_ORDER);
        const { rows } = await trx.raw<{ rows: { 'QUERY PLAN': string }[] }>('explain select id from persons order by id');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    // A shard of a dozen rows is read sequentially, unless the hint forbids it on the worker too.
    expect(await plan(false)).toMatch(/Seq Scan on persons_\d+/);
    expect(await plan(true)).not.toMatch(/Seq Scan on persons_\d+/);
  });

  it('reads bulk ids only from the shards that hold them', async () => {
    const ids = persons.slice(0, 2).map((p) => p.id);
    const shards = new Set(
      (
        await h.knex.raw<{ rows: { shard: string }[] }>(
          "select get_shard_id_for_distribution_column('persons', id)::text as shard from unnest(?::uuid[]) id",
          [ids],
        )
      ).rows.map((r) => r.shard),
    );
    expect(await taskCount(h.knex, 'select id, username, record::text as record from persons where id = any(?::uuid[])', [ids])).toBe(shards.size);
    const res = await h.post('/api/v1/people/bulk', { ids }, key);
    expect(res.status).toBe(200);
  });

  /** The statements (with their bindings) run on the app's knex while fn executes. */
  const statementsDuring = async (fn: () => Promise<unknown>): Promise<{ sql: string; bindings: Knex.RawBinding[] }[]> => {
    const seen: { sql: string; bindings: Knex.RawBinding[] }[] = [];
    const listener = (q: { sql: string; bindings?: Knex.RawBinding[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
    h.knex.on('query', listener);
    try {
      await fn();
    } finally {
      h.knex.off('query', listener);
    }
    return seen;
  };
  const explain = async (sql: string, bindings: Knex.RawBinding[], settings = ''): Promise<string> =>
    h.knex.transaction(async (trx) => {
      if (settings) await trx.raw(settings);
      // The statement as knex sent it ($1, $2 …), on the transaction's own connection.
      const { rows } = await (await connectionOf(trx)).query<{ 'QUERY PLAN': string }>(`explain ${sql}`, bindings as unknown[]);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });

  /** Rows where the identifier table and the lake tables disagree (none, if the writer kept it exactly). */
  const identifierDrift = async (): Promise<unknown[]> => {
    const derived = `select username::text as value, 'person:username' as kind, id as subject_id from persons
      union all select network_id, 'person:network_id', id from persons where network_id is not null
      union all select network_urn, 'person:network_urn', id from persons where network_urn is not null
      union all select username, 'company:username', id from companies
      union all select company_id::text, 'company:company_id', id from companies where company_id is not null`;
    const { rows } = await h.knex.raw(
      `(select 'missing' as what, * from (${derived}) d except select 'missing', value, kind, subject_id from lake_identifiers)
       union all
       (select 'extra', value, kind, subject_id from lake_identifiers except select 'extra', * from (${derived}) d)`,
    );
    return rows;
  };

  it("counts a list's matches on the shards: one number per shard, the total exact up to the bound", async () => {
    const seniority = [...new Set(persons.map((p) => p.seniority).filter((s) => s !== null))].slice(0, 2);
    const expected = persons.filter((p) => p.seniority !== null && seniority.includes(p.seniority)).length;
    expect(expected).toBeGreaterThan(1);
    const seen = await statementsDuring(async () => {
      const res = await h.post('/api/v1/people/search', { seniority, per_page: 1 }, key);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(expected);
    });
    const set = seen.find((q) => q.sql.includes('citus.subquery_pushdown'))!;
    const count = seen.find((q) => /^select count\(\*\)/.test(q.sql))!;
    expect(set).toBeDefined();
    expect(count).toBeDefined();
    const plan = await explain(count.sql, count.bindings, set.sql);
    // Each shard's task aggregates its own matches (Aggregate under the task's Limit), where the
    // same count without the setting ships the matching rows to the coordinator.
    expect(plan).toMatch(new RegExp(`Task Count: ${SHARDS}[\\s\\S]*->  Task[\\s\\S]*Aggregate`));
    expect(await explain(count.sql, count.bindings)).toMatch(/Distributed Subplan/);
    // Above the bound (each shard stops at bound + 1): the bound, as `gte`.
    const matches = () => h.knex('persons').whereIn('seniority', seniority).select(h.knex.raw('1'));
    expect(await countMatches(h.knex, matches(), expected - 1)).toEqual({ total: expected - 1, totalRelation: 'gte' });
    expect(await countMatches(h.knex, matches(), expected)).toEqual({ total: expected, totalRelation: 'eq' });
  });

  it('writes a batch on the shards: the upsert reads a staging table co-located with persons, pushed down whole', async () => {
    const batch = persons.slice(20, 80).map((p) => ({ ...p, current_title: `${p.current_title ?? ''} (staged)`, positions: [...p.positions].reverse() }));
    expect(batch.length).toBeGreaterThanOrEqual(STAGING_MIN_RECORDS);
    const seen = await statementsDuring(() => writeRecords(h.knex, 'person', batch));
    const writes = seen.filter((q) => /^insert into person(s|_positions|_educations) /.test(q.sql) && q.sql.includes('person_staging'));
    expect(writes.map((q) => /^insert into (\w+)/.exec(q.sql)![1])).toEqual(['persons', 'person_positions', 'person_educations']);
    for (const q of writes) {
      const plan = await explain(q.sql, q.bindings);
      // Pushed down: one INSERT … SELECT per shard, run on the worker (no intermediate result on
      // the coordinator, no repartition).
      expect(plan).not.toMatch(/INSERT\/SELECT method|Distributed Subplan/);
      expect(plan).toMatch(/Insert on (persons|person_positions|person_educations)_\d+/);
    }
    // Nothing stays staged, and the lake holds the batch as written.
    expect(Number((await h.knex.raw<{ rows: { n: string }[] }>('select count(*) as n from person_staging')).rows[0]!.n)).toBe(0);
    for (const p of [batch[0]!, batch[batch.length - 1]!]) {
      const res = await h.get(`/api/v1/person?id=${p.id}`, key);
      expect(res.status).toBe(200);
      expect(res.body.data.current_title).toBe(p.current_title);
      expect(res.body.data.positions.map((x: { title: string }) => x.title)).toEqual(
        newestFirstPositions(p.positions).map((x) => x.title),
      );
    }
    // The identifier table moved with the records: a changed username is found under its new value only.
    const renamed = { ...batch[1]!, username: `${batch[1]!.username}-renamed` };
    await writeRecords(h.knex, 'person', [renamed, ...batch.slice(2).map((p) => ({ ...p, current_title: `${p.current_title} again` }))]);
    expect((await h.get(`/api/v1/person?username=${renamed.username}`, key)).status).toBe(200);
    expect((await h.get(`/api/v1/person?username=${batch[1]!.username}`, key)).status).toBe(404);
    expect(await identifierDrift()).toEqual([]);
  });

  it('imports with every rule: valid lines written, invalid ones reported, withdrawn subjects refused, changes logged', async () => {
    const [a, b, withdrawn] = persons.slice(10, 13) as [PersonRecord, PersonRecord, PersonRecord];
    await suppress(h.knex, 'person', { by: 'username', value: withdrawn.username } as never);
    const changed = { ...a, current_title: 'Chief Distributed Officer' };
    const fresh = { ...(world.person(LOADED + 10) as PersonRecord) };
    const file = path.join(tmp, 'persons.ndjson');
    fs.writeFileSync(file, [JSON.stringify(changed), JSON.stringify(b), '{"not":"a person"}', JSON.stringify(withdrawn), JSON.stringify(fresh)].join('\n') + '\n');
    const report = await importFile(h.knex, { kind: 'person', file, validate: recordValidator('PersonResult') });
    expect(report).toMatchObject({ invalid: 1, withdrawn: 1 });
    expect((await h.get(`/api/v1/person?username=${fresh.username}`, key)).status).toBe(200);
    expect((await h.get(`/api/v1/person?username=${withdrawn.username}`, key)).status).toBe(451);
    expect((await h.get(`/api/v1/person?id=${a.id}`, key)).body.data.current_title).toBe('Chief Distributed Officer');
    const log = await h.knex('change_log').where({ subject_id: a.id, origin: 'import' });
    expect(log.length).toBeGreaterThan(0);
    expect(await identifierDrift()).toEqual([]);
  });

  it('a withdrawal deletes the identifier rows by value and vacuums no shard (issue 32, row 18)', async () => {
    const withdrawn = persons[95]!;
    expect(Number((await h.knex('lake_identifiers').where({ subject_id: withdrawn.id }).count<{ n: number }[]>({ n: '*' }))[0]!.n)).toBeGreaterThan(0);
    const sent: { sql: string; bindings: unknown[] }[] = [];
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    h.knex.on('query', onQuery);
    try {
      await suppress(h.knex, 'person', { by: 'username', value: withdrawn.username } as never);
    } finally {
      h.knex.off('query', onQuery);
    }
    expect(Number((await h.knex('lake_identifiers').where({ subject_id: withdrawn.id }).count<{ n: number }[]>({ n: '*' }))[0]!.n)).toBe(0);
    // The identifier rows' delete goes to the shards of their values only (EXPLAIN: a task per
    // shard), not to every shard of the table as a delete by subject did.
    const deletes = sent.filter((q) => /^delete from lake_identifiers/i.test(q.sql));
    expect(deletes).toHaveLength(1);
    const plan = (await h.knex.raw(`explain ${deletes[0]!.sql.replace(/\$\d+/g, '?')}`, deletes[0]!.bindings as never)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    const tasks = Number(/Task Count: (\d+)/.exec(plan)?.[1]);
    const shards = Number((await h.knex.raw("select count(*)::int as n from pg_dist_shard where logicalrelid = 'lake_identifiers'::regclass")).rows[0].n);
    expect(tasks).toBeLessThanOrEqual(3);
    expect(tasks).toBeLessThan(shards);
    expect(await identifierDrift()).toEqual([]);
    // No VACUUM of the distributed lake per withdrawal (one per shard of every table): autovacuum's.
    expect(await reclaimWithdrawnSpace(h.knex, 'person')).toBe(false);
    expect((await h.get(`/api/v1/person?username=${withdrawn.username}`, key)).status).toBe(451);
  });

  it('refreshes with two workers: every record claimed once, the changes logged', async () => {
    sim.advance(100 * DAY);
    const silent = pino({ level: 'silent' });
    const config = { ...loadConfig({}).refresh, batchSize: 10, leaseSeconds: 60, minAgeSeconds: 0, watchedMinAgeSeconds: 0 };
    const [db1, db2] = [createKnex(cluster.url, 3), createKnex(cluster.url, 3)];
    try {
      const before = Number((await h.knex('change_log').max<{ max: number }[]>({ max: 'id' }))[0]!.max ?? 0);
      const due = (await h.knex.raw<{ rows: { n: number }[] }>('select (select count(*) from person_refresh) + (select count(*) from company_refresh) as n')).rows[0]!.n;
      const dueBefore = (await h.knex.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
      const [r1, r2] = await Promise.all([
        new RefreshWorker({ db: db1, source: httpSource(server.protocolUrl), config, logger: silent }).runRound({ dueBefore }),
        new RefreshWorker({ db: db2, source: httpSource(server.protocolUrl), config, logger: silent }).runRound({ dueBefore }),
      ]);
      expect(r1.claimed + r2.claimed).toBe(Number(due));
      expect(r1.claimed).toBeGreaterThan(0);
      expect(r2.claimed).toBeGreaterThan(0);
      expect(Number((await h.knex('change_log').where('id', '>', before).count<{ count: string }[]>({ count: '*' }))[0]!.count)).toBeGreaterThan(0);
    } finally {
      await db1.destroy();
      await db2.destroy();
    }
  });

  it('writes a realtime answer back: the next lookup finds it in the lake', async () => {
    const unknown = world.person(LOADED + 1) as PersonRecord;
    expect((await h.get(`/api/v1/person?username=${unknown.username}`, key)).status).toBe(404);
    expect((await h.get(`/api/v1/person/realtime?username=${unknown.username}`, key)).status).toBe(200);
    expect((await h.get(`/api/v1/person?username=${unknown.username}`, key)).status).toBe(200);
  });

  it('a stopped worker: requests that need its shards answer 503, the others 200; it recovers without a restart', async () => {
    const [, stopped] = cluster.workers as [unknown, (typeof cluster.workers)[number]];
    const ports = await Promise.all(persons.slice(0, 40).map(async (p) => ({ p, port: await placement(p.id) })));
    const onStopped = ports.find((x) => x.port === stopped.port)!.p;
    const onOther = ports.find((x) => x.port !== stopped.port)!.p;
    stopped.stop();
    try {
      const down = await h.get(`/api/v1/person?id=${onStopped.id}`, key);
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('SERVICE_UNAVAILABLE');
      expect((await h.get(`/api/v1/person?id=${onOther.id}`, key)).status).toBe(200);
      expect((await h.get('/api/v1/account', key)).status).toBe(200);
    } finally {
      stopped.start();
    }
    await eventually(async () => (await h.get(`/api/v1/person?id=${onStopped.id}`, key)).status === 200, 60_000, 250);
  });
});
