/**
 * Matching (issue 33) on a real Citus cluster: a coordinator and two workers started here
 * (cluster.ts), migrated, laid out by `enrich distribute` (db/citusLayout.ts: the match migration's
 * `lake_` functions distributed, its indexes on every shard), a small world loaded beside records
 * made for the answers. Then person matches by name + company and by work email and a company
 * match by domain over HTTP (every response checked against the contract by the harness), and
 * every statement those matches send to a lake table explained on the cluster: which candidate
 * searches are routed to one shard or node (companies: a reference table; the change log: local on
 * the coordinator) and which fan out to every shard (persons are distributed by id, and no arm
 * knows an id), each shard's part using its index (sequential scans disabled in the explaining
 * transaction, on the workers too). docs/scale-out.md tells what this costs, with a measured ratio
 * (bench/citusMatch.ts). Where the citus extension is not installed, the lane says why and skips.
 */
import pg from 'pg';
import { captureStatements, type Statement } from '../../bench/readMix';
import { applyDistributedLayout } from '../../src/db/citusLayout';
import { createKnex, migrateLatest } from '../../src/db/knex';
import { createWorld, defaultAsOf } from '../../src/world';
import { createHarness, type Harness } from '../helpers/harness';
import { loadWorld } from '../helpers/live';
import { storeCompanies, storePersons } from '../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../helpers/matchRecords';
import { citusUnavailable, startCitusCluster, type CitusCluster } from './cluster';

const why = citusUnavailable();
if (why) console.warn(`Citus lane skipped: ${why}`);
const lane = why ? describe.skip : describe;

const SHARDS = 8;
const WORLD = { persons: 200, companies: 20, seed: 3303, asOf: defaultAsOf() };

/** Where a statement runs on the cluster, from its distributed plan. */
interface Placement {
  sql: string;
  /** The Task Count of every distributed (sub)plan of the statement; empty: a local table only. */
  tasks: number[];
  /** Sequential scans of a lake table or of one of its shards, anywhere in the plan. */
  seqScans: string[];
}

const LAKE = /\b(persons|companies|change_log)\b/;

lane('matching on Citus: a coordinator and two workers', () => {
  let cluster: CitusCluster;
  let h: Harness;
  let key: string;
  let explainer: pg.Client;
  const word = rareSurname();
  const acme = matchCompany(`${word} Robotics, Inc.`, `https://www.${word.toLowerCase()}robotics.com/`);
  const last = rareSurname();
  const robert = matchPerson('Robert', last, [{ company: acme.name, companyId: acme.company_id, title: 'VP of Sales' }]);
  // Same first name and company, another last name: must not be taken for Robert.
  const other = matchPerson('Robert', rareSurname(), [{ company: acme.name, companyId: acme.company_id }]);
  const domain = `${word.toLowerCase()}robotics.com`;

  beforeAll(async () => {
    cluster = await startCitusCluster('enrich_match');
    const knex = createKnex(cluster.url, 4);
    try {
      await migrateLatest(knex);
      await applyDistributedLayout(knex, { shardCount: SHARDS });
      await loadWorld(knex, createWorld(WORLD), WORLD.persons);
      await storeCompanies(knex, acme);
      await storePersons(knex, robert, other);
      await knex.raw('analyze');
    } finally {
      await knex.destroy();
    }
    h = await createHarness({ databaseUrl: cluster.url });
    key = (await h.workspace({ rateLimit: 100_000 })).key;
    explainer = new pg.Client({ connectionString: cluster.url, application_name: 'match-explain' });
    explainer.on('error', () => undefined);
    await explainer.connect();
  }, 900_000);

  afterAll(async () => {
    await explainer?.end().catch(() => undefined);
    await h?.close();
    cluster?.stop();
  }, 300_000);

  /** The lake statements of `fn`, each explained on the cluster (sequential scans off, on the workers too). */
  async function placements(fn: () => Promise<unknown>): Promise<Placement[]> {
    const statements: Statement[] = await captureStatements(h.knex, async () => void (await fn()));
    const out: Placement[] = [];
    for (const s of statements) {
      if (!LAKE.test(s.sql) || !/^\s*(select|\()/i.test(s.sql)) continue;
      await explainer.query('begin');
      try {
        // SET LOCAL reaches the workers' transactions (the layout sets citus.propagate_set_commands).
        await explainer.query('set local enable_seqscan = off');
        const { rows } = await explainer.query<{ 'QUERY PLAN': string }>(`explain ${s.sql}`, s.bindings as unknown[]);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        out.push({
          sql: s.sql.replace(/\s+/g, ' ').trim(),
          tasks: [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1])),
          seqScans: [...plan.matchAll(/Seq Scan on ((?:persons|companies|change_log)(?:_\d+)?)\b/g)].map((m) => m[1]!),
        });
      } finally {
        await explainer.query('commit');
      }
    }
    // MATCH_PLANS=1 prints each statement with its Task Counts (what docs/scale-out.md's table quotes).
    if (process.env.MATCH_PLANS) console.log(out.map((p) => `${JSON.stringify(p.tasks)} ${p.sql}`).join('\n'));
    return out;
  }

  const fansOut = (p: Placement) => p.tasks.some((t) => t === SHARDS);
  const routed = (p: Placement) => p.tasks.length > 0 && p.tasks.every((t) => t === 1);
  const local = (p: Placement) => p.tasks.length === 0;

  it('lays the match functions and indexes out on the workers', async () => {
    // The functions the indexes and arms call are distributed objects (created on every node).
    const { rows } = await h.knex.raw<{ rows: { name: string }[] }>(
      `select p.proname as name from pg_dist_object o join pg_proc p on p.oid = o.objid
       where o.classid = 'pg_proc'::regclass and p.proname in ('lake_fold', 'lake_name_key', 'lake_company_key', 'lake_web_host') order by 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(['lake_company_key', 'lake_fold', 'lake_name_key', 'lake_web_host']);
    // Citus hides shards from catalog queries on a node with metadata, unless asked.
    const showShards = "set citus.show_shards_for_app_name_prefixes = '*'; ";
    for (const w of cluster.workers) {
      expect(w.psql(cluster.database, "select string_agg(extname, ',' order by extname) from pg_extension where extname in ('pg_trgm', 'unaccent')")).toBe('pg_trgm,unaccent\n');
      // Every persons shard on this worker carries the name-key and trigram indexes.
      const shards = Number(w.psql(cluster.database, showShards + "select count(*) from pg_class where relname ~ '^persons_[0-9]+$' and relkind = 'r'"));
      const indexed = Number(w.psql(cluster.database, showShards + "select count(*) from pg_class where relname ~ '^persons_match_name_(key|trgm)_[0-9]+$' and relkind = 'i'"));
      expect(shards).toBeGreaterThan(0);
      expect(indexed).toBe(2 * shards);
      expect(w.psql(cluster.database, "select lake_company_key('ACME Corp.') || '|' || lake_name_key('José  Núñez Jr.') || '|' || lake_web_host('https://www.Acme.com/x')")).toBe('acme|nunez|acme.com\n');
    }
  });

  it('matches a person by name and company: the company is found on one node, the persons on every shard', async () => {
    let res!: Awaited<ReturnType<Harness['post']>>;
    const plans = await placements(async () => {
      res = await h.post('/api/v1/person/match', { name: `Bob ${last.toUpperCase()}`, company: `${word} Robotics` }, key);
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(res.body.match.likelihood).toBeGreaterThanOrEqual(0.7);
    expect(Object.fromEntries(res.body.match.evidence.map((e: { field: string; level: string }) => [e.field, e.level]))).toMatchObject({ name: 'nickname', company: 'exact' });

    const companies = plans.filter((p) => /\bfrom companies\b/.test(p.sql));
    const persons = plans.filter((p) => /\bfrom persons\b/.test(p.sql));
    const changeLog = plans.filter((p) => /\bfrom change_log\b/.test(p.sql));
    expect(companies.length).toBeGreaterThan(0);
    expect(persons.length).toBeGreaterThan(0);
    // The employer by its name key: a reference table, one task on one node.
    for (const p of companies) expect([p.sql, routed(p)]).toEqual([p.sql, true]);
    // A former name: the change log is local on the coordinator, no distributed plan.
    for (const p of changeLog) expect([p.sql, local(p)]).toEqual([p.sql, true]);
    // The name-key arms know no person id: every shard is asked.
    for (const p of persons) expect([p.sql, fansOut(p)]).toEqual([p.sql, true]);
    for (const p of plans) expect([p.sql, p.seqScans]).toEqual([p.sql, []]);
  });

  it('matches a work email: its domain routed to one node, its local part fanned out by name key', async () => {
    let res!: Awaited<ReturnType<Harness['post']>>;
    const plans = await placements(async () => {
      res = await h.post('/api/v1/person/match', { email: `robert.${last.toLowerCase()}@${domain}` }, key);
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(Object.fromEntries(res.body.match.evidence.map((e: { field: string; level: string }) => [e.field, e.level]))).toMatchObject({ email: 'exact', company_domain: 'exact' });
    const byHost = plans.filter((p) => /lake_web_host/.test(p.sql));
    expect(byHost.length).toBeGreaterThan(0);
    for (const p of byHost) expect([p.sql, routed(p)]).toEqual([p.sql, true]);
    const persons = plans.filter((p) => /\bfrom persons\b/.test(p.sql));
    expect(persons.length).toBeGreaterThan(0);
    for (const p of persons) expect([p.sql, fansOut(p)]).toEqual([p.sql, true]);
    for (const p of plans) expect([p.sql, p.seqScans]).toEqual([p.sql, []]);
  });

  it('matches a company by domain without asking any shard of persons', async () => {
    let res!: Awaited<ReturnType<Harness['post']>>;
    const plans = await placements(async () => {
      res = await h.post('/api/v1/company/match', { domain: `https://careers.${domain}/jobs` }, key);
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(acme.id);
    expect(res.body.match.likelihood).toBeGreaterThanOrEqual(0.9);
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.filter((p) => /\bpersons\b/.test(p.sql))).toEqual([]);
    for (const p of plans) expect([p.sql, routed(p) || local(p)]).toEqual([p.sql, true]);
    for (const p of plans) expect([p.sql, p.seqScans]).toEqual([p.sql, []]);
  });

  it('the plan reading can fail: a lookup of persons by a plain column fans out and scans', async () => {
    const plans = await placements(() => h.knex.raw("select id from persons where record->>'headline' = ?", ['x']));
    expect(plans).toHaveLength(1);
    expect(fansOut(plans[0]!)).toBe(true);
    expect(plans[0]!.seqScans.length).toBeGreaterThan(0);
  });
});
