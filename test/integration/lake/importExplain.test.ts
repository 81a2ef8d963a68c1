/**
 * The EXPLAIN gate of `enrich import`: every statement an import issues on a lake table (new
 * records through the staging table and through one parameter, unchanged records, records at a
 * new fetched_at, on several lanes; persons and companies) is explained with its own bindings, with
 * sequential scans disabled as in explainGate.test.ts, and a sequential scan of a lake table fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { RECORD_COLUMNS } from '../../../src/db/repositories/lakeTables';
import { importFile } from '../../../src/domain/lake/importer';
import { recordValidator } from '../../../src/http/recordSchemas';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import { onCitus } from '../../helpers/clusterDatabase';

let explainer: pg.Client;
afterAll(() => explainer?.end());
const lw = useLakeWorld();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-import-explain-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  explainer = new pg.Client({ connectionString: lw.url, application_name: 'import-explain-gate' });
  explainer.on('error', () => undefined);
  await explainer.connect();
});

const LAKE_TABLES = ['persons', 'person_positions', 'person_educations', 'person_refresh', 'companies', 'company_refresh', 'suppressions'];
const NOT_EXPLAINABLE = /^\s*(begin|commit|rollback|savepoint|release|set |lock table|analyze|create index|drop index|select not exists)/i;

interface Statement {
  sql: string;
  bindings: unknown[];
}

async function importCapturing(kind: 'person' | 'company', records: object[], batchSize: number): Promise<Statement[]> {
  const name = path.join(dir, `${kind}-${Date.now()}-${Math.random()}.ndjson`);
  fs.writeFileSync(name, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const statements: Statement[] = [];
  // A query of several statements (locks.ts lockKeysThenRead: one simple query, values written in as
  // literals that hold no `;` or line break) is explained statement by statement.
  const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
    if (q.bindings?.length) statements.push({ sql: q.sql, bindings: q.bindings });
    else for (const sql of q.sql.split(';\n')) statements.push({ sql, bindings: [] });
  };
  lw.h.knex.on('query', onQuery);
  try {
    const report = await importFile(lw.h.knex, {
      kind,
      file: name,
      batchSize,
      lanes: 2,
      validate: recordValidator(kind === 'person' ? 'PersonResult' : 'CompanyResult'),
    });
    expect(report).toMatchObject({ written: records.length, invalid: 0 });
  } finally {
    lw.h.knex.off('query', onQuery);
  }
  return statements.filter((s) => !NOT_EXPLAINABLE.test(s.sql));
}

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

async function seqScans(statement: Statement): Promise<string[]> {
  await explainer.query('begin');
  try {
    await explainer.query('set local enable_seqscan = off');
    await explainer.query('create temporary table if not exists lake_staging (n integer, username text, doc text) on commit drop');
    const { rows } = await explainer.query(`explain (format json) ${statement.sql}`, statement.bindings);
    return nodesOf(rows[0]['QUERY PLAN'][0].Plan)
      .filter((n) => n['Node Type'] === 'Seq Scan' && LAKE_TABLES.includes(n['Relation Name'] ?? ''))
      .map((n) => `${n['Relation Name']}: ${statement.sql.replace(/\s+/g, ' ').slice(0, 120)}`);
  } finally {
    await explainer.query('rollback');
  }
}

// The plans judged here are one PostgreSQL's. On the distributed layout (npm run test:citus:suite) an
// import's statements differ (no staging table, the identifier table) and EXPLAIN on the coordinator
// shows one shard's plan; its routing has its own EXPLAIN gate (test/citus/distributed.test.ts).
(onCitus() ? describe.skip : describe)('EXPLAIN gate of enrich import', () => {
  it('no statement of an import scans a lake table sequentially', async () => {
    const people = Array.from({ length: 60 }, () => personRecord());
    const companies = Array.from({ length: 60 }, () => companyRecord());
    const later = <T extends { fetched_at: string }>(r: T): T => ({ ...r, fetched_at: new Date(Date.parse(r.fetched_at) + 86_400_000).toISOString() });
    const statements = [
      ...(await importCapturing('person', people, 120)), // new, through the staging table (two lanes of 30+)
      ...(await importCapturing('person', people.slice(0, 10), 5)), // unchanged, small batches (one parameter)
      ...(await importCapturing('person', people.map(later), 120)), // a new fetched_at
      ...(await importCapturing('person', people.map((p) => ({ ...p, headline: 'Changed' })), 120)), // changed
      ...(await importCapturing('company', companies, 120)),
      ...(await importCapturing('company', companies.map(later), 120)),
      ...(await importCapturing('company', companies.map((c) => ({ ...c, tagline: 'Changed' })), 120)),
    ];
    const seen = new Set(statements.map((s) => s.sql.replace(/\s+/g, ' ').slice(0, 60)));
    // The statements this gate is for are among those explained (the stored persons of a batch are
    // read by id or username after their sorted advisory locks: no multi-row FOR UPDATE, issue 21).
    for (const start of ['select id, username from persons where username = any', 'select id, username, company_id::text as company_id from com', `select id, username, ${RECORD_COLUMNS} from persons`.slice(0, 60), 'with input as (select * from unnest']) {
      expect([...seen].some((s) => s.startsWith(start))).toBe(true);
    }
    const failures: string[] = [];
    for (const statement of statements) failures.push(...(await seqScans(statement)));
    expect(failures).toEqual([]);
  });

  it('fails a statement that can only scan a lake table (the gate can fail)', async () => {
    expect(await seqScans({ sql: "update persons set fetched_at = now() where record->>'headline' = $1", bindings: ['x'] })).toHaveLength(1);
  });
});
