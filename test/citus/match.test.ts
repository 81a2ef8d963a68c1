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
import {
  findPersonsByTrigram,
  PERSON_TRIGRAM_LIMIT,
  TRIGRAM_ANYWHERE_THRESHOLD,
  TRIGRAM_EMPLOYER_THRESHOLD,
} from '../../src/db/repositories/matchCandidates';
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
  /**
   * The plan cut into its parts: each `Distributed Subplan` (Citus plans a CTE or a sub-query with
   * a LIMIT apart, and runs it first), then the rest. A person match's candidate search is one
   * statement (the employers and the name-key arms, matchCandidates.ts), so where its reads run is
   * told part by part: which lake tables a part reads, its Task Counts, the nodes its tasks go to.
   */
  parts: Part[];
}

interface Part {
  tables: string[];
  tasks: number[];
  /** Ports of the nodes the part's tasks are sent to. */
  ports: number[];
}

const LAKE = /\b(persons|companies|change_log)\b/;
const indentOf = (line: string) => line.length - line.trimStart().length;

/** `plan` (EXPLAIN's text) cut into its distributed sub-plans and the rest (Placement.parts). */
function partsOf(plan: string): Part[] {
  const sections: string[][] = [];
  const rest: string[] = [];
  let open: { indent: number; lines: string[] } | undefined;
  for (const line of plan.split('\n')) {
    if (open && indentOf(line) <= open.indent) open = undefined;
    if (!open && /->\s+Distributed Subplan/.test(line)) {
      open = { indent: indentOf(line), lines: [] };
      sections.push(open.lines);
      continue;
    }
    (open ? open.lines : rest).push(line);
  }
  return [...sections, rest].map((lines) => {
    const text = lines.join('\n');
    return {
      // A scan of a table or of one of its shards (an index's name, persons_pkey_102008, is not a table).
      tables: [...new Set([...text.matchAll(/Scan(?: using \S+)? on (persons|companies|change_log)(?:_\d+)?(?= |$)/gm)].map((m) => m[1]!))],
      tasks: [...text.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1])),
      ports: [...text.matchAll(/Node: host=\S+ port=(\d+)/g)].map((m) => Number(m[1])),
    };
  });
}

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
      if (!LAKE.test(s.sql) || !/^\s*(select|with|\()/i.test(s.sql)) continue;
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
          parts: partsOf(plan),
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
  /** The parts of these plans that read `table`, each with its statement. */
  const partsReading = (plans: Placement[], table: string) =>
    plans.flatMap((p) => p.parts.filter((part) => part.tables.includes(table)).map((part) => ({ sql: p.sql, ...part })));
  /** A part sent to one node: one task (a reference table's copy, or a local table on the coordinator). */
  const onOneNode = (part: Part) => part.tasks.length > 0 && part.tasks.every((t) => t === 1) && new Set(part.ports).size === 1;
  const onEveryShard = (part: Part) => part.tasks.includes(SHARDS);

  it('lays the match functions and indexes out on the workers', async () => {
    // The functions the indexes and arms call are distributed objects (created on every node).
    const { rows } = await h.knex.raw<{ rows: { name: string }[] }>(
      `select p.proname as name from pg_dist_object o join pg_proc p on p.oid = o.objid
       where o.classid = 'pg_proc'::regclass and p.proname in ('lake_fold', 'lake_name_key', 'lake_company_key', 'lake_web_host', 'lake_trgm_name') order by 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(['lake_company_key', 'lake_fold', 'lake_name_key', 'lake_trgm_name', 'lake_web_host']);
    // Citus hides shards from catalog queries on a node with metadata, unless asked.
    const showShards = "set citus.show_shards_for_app_name_prefixes = '*'; ";
    for (const w of cluster.workers) {
      expect(w.psql(cluster.database, "select string_agg(extname, ',' order by extname) from pg_extension where extname in ('pg_trgm', 'unaccent')")).toBe('pg_trgm,unaccent\n');
      // Every persons shard on this worker carries the name-key (covering, persons_match_name:
      // migration 20261209000500_match_name_covering) and (employer, trigrams) indexes
      // (persons_match_trgm: migration 20261211000300_match_employer_trigrams).
      const shards = Number(w.psql(cluster.database, showShards + "select count(*) from pg_class where relname ~ '^persons_[0-9]+$' and relkind = 'r'"));
      const indexed = Number(w.psql(cluster.database, showShards + "select count(*) from pg_class where relname ~ '^persons_match_(name|trgm)_[0-9]+$' and relkind = 'i'"));
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

    // The employers (by name key, by former name) and the name-key arms: one statement, its reads
    // told part by part.
    const companies = partsReading(plans, 'companies');
    const persons = partsReading(plans, 'persons');
    const changeLog = partsReading(plans, 'change_log');
    expect(companies.length).toBeGreaterThan(0);
    expect(persons.length).toBeGreaterThan(0);
    expect(changeLog.length).toBeGreaterThan(0);
    // The employer by its name key: a reference table, one task on one node.
    for (const p of companies) expect([p.sql, p.tables, onOneNode(p)]).toEqual([p.sql, p.tables, true]);
    // A former name: the change log is local, so its part runs on the coordinator (one task there).
    for (const p of changeLog) expect([p.sql, onOneNode(p), p.ports[0]]).toEqual([p.sql, true, cluster.coordinator.port]);
    // The name-key arms know no person id: every shard is asked; a part reading persons never
    // shares a part with the employers (each runs where its table is).
    for (const p of persons) expect([p.sql, onEveryShard(p), p.tables]).toEqual([p.sql, true, ['persons']]);
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
    // The employer by host and the name-key arms of the local part: one statement, told part by part.
    expect(plans.some((p) => /lake_web_host/.test(p.sql))).toBe(true);
    const companies = partsReading(plans, 'companies');
    expect(companies.length).toBeGreaterThan(0);
    for (const p of companies) expect([p.sql, p.tables, onOneNode(p)]).toEqual([p.sql, p.tables, true]);
    const persons = partsReading(plans, 'persons');
    expect(persons.length).toBeGreaterThan(0);
    for (const p of persons) expect([p.sql, onEveryShard(p), p.tables]).toEqual([p.sql, true, ['persons']]);
    for (const p of plans) expect([p.sql, p.seqScans]).toEqual([p.sql, []]);
  });

  it("asks the trigram arm at its own thresholds on the workers, not at the shards' default 0.3", async () => {
    // The `%` of the trigram arm runs on the workers: a threshold that did not reach them (a
    // set_config() is not propagated) leaves pg_trgm's default 0.3 there, and the arm anywhere
    // (0.5) then returns candidates one server leaves out. Each name of the world is asked anywhere
    // and at its own employer; the answer must be what the thresholds select, computed here with
    // similarity() (what `%` compares to the threshold, float4 widened to double).
    const { rows: people } = await h.knex.raw<{ rows: { name: string; company_id: string | null }[] }>(
      `select distinct on (lake_fold(full_name)) lake_fold(full_name) as name, current_company_id::text as company_id
       from persons where length(lake_fold(full_name)) >= 3 order by lake_fold(full_name) limit 60`,
    );
    const closest = async (name: string, threshold: number, companyId?: string) =>
      (
        await h.knex.raw<{ rows: { id: string }[] }>(
          `select id from persons where similarity(lake_fold(full_name), ?)::float8 >= ?::float8
             ${companyId ? 'and current_company_id = ?::bigint' : ''}
           order by similarity(lake_fold(full_name), ?) desc, id limit ${PERSON_TRIGRAM_LIMIT}`,
          [name, threshold, ...(companyId ? [companyId] : []), name],
        )
      ).rows.map((r) => r.id);
    let telling = 0;
    for (const p of people) {
      const companyIds = p.company_id ? [p.company_id] : [];
      const found = (await findPersonsByTrigram(h.knex, p.name, companyIds)).map((r) => r.id).sort();
      const expected = new Set(await closest(p.name, TRIGRAM_ANYWHERE_THRESHOLD));
      if (p.company_id) for (const id of await closest(p.name, TRIGRAM_EMPLOYER_THRESHOLD, p.company_id)) expected.add(id);
      expect([p.name, found]).toEqual([p.name, [...expected].sort()]);
      // A name whose answer anywhere at 0.3 differs: the check above tells the thresholds apart.
      if ((await closest(p.name, 0.3)).length !== (await closest(p.name, TRIGRAM_ANYWHERE_THRESHOLD)).length) telling += 1;
    }
    expect(telling).toBeGreaterThan(0);
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
