/**
 * Candidate search for matching (blocking): the only stage of matching that reads the database.
 * Every arm is one indexed lookup with a bound on its rows (migration 20261208000100_match), so a
 * match never scans the lake; test/integration/match/candidateExplain.test.ts shows the plans.
 *
 * Persons, by the name key (`lake_name_key(full_name)`, the last word of the name; the query passes
 * every word of its name, so a swapped name still meets its key), both arms index-only scans of
 * persons_match_name (name key, current_company_id, folded name; id and full name included:
 * migration 20261209000500_match_name_covering):
 *   - at the resolved employers: (name key, current_company_id);
 *   - anywhere: the index's first column, the closest names first (similarity of the folded names,
 *     read from the index), at most PERSON_KEY_LIMIT rows;
 *   - typos in the last name: the GIN index persons_match_trgm (employer, trigrams of the folded
 *     name: migration 20261211000300_match_employer_trigrams), asked only when the first arms found
 *     no candidate whose name agrees (domain/match/candidates.ts decides).
 * A person query's employers (by company name, former name, host) and both name-key arms are one
 * statement, one round trip (findPersonCandidatesAndEmployers); the trigram arm a second when asked.
 * Companies: by website host, by name key, by trigrams of the name key, by a former name (the
 * change log's renames).
 *
 * On the distributed layout (docs/scale-out.md) persons are distributed by id, so every person arm
 * fans out to all shards (each shard applies the LIMIT, the coordinator merges); companies and the
 * change log are not distributed (reference / local tables): their arms run on one node.
 * Each person statement selects the records of its arms' ids by primary key in the same round trip.
 */
import type { Knex } from 'knex';
import { arrayLiteral, literal } from '../literals';
import { hasIdentifierTable } from './lakeIdentifiers';
import { RECORD_COLUMNS, served } from './lakeTables';

/** Rows read by the name-key arm without an employer: the closest names of the key's group. */
export const PERSON_KEY_LIMIT = 40;
/** Rows read at the resolved employers. */
export const PERSON_EMPLOYER_LIMIT = 40;
/** Rows read by trigram similarity. */
export const PERSON_TRIGRAM_LIMIT = 20;

export interface PersonBlock {
  /** Name keys to look up (folded words of the name, or of an email's local part). */
  keys: readonly string[];
  /** The folded name the closest names are measured against. */
  name: string;
  /** Numeric company IDs the employer fields resolved to. */
  companyIds: readonly string[];
}

/** What a person query blocks on: its employer fields (resolved here) and its name keys. */
export interface PersonSearch extends PersonBlock {
  /** companyKey of the employer's name: current names and former names (renames). */
  company: string | null;
  /** Website hosts of the employer (the company domain, else a work email's domain). */
  hosts: readonly string[];
}

/** The employers a person query resolved to, by which field, and its candidate persons (served records). */
export interface PersonSearchRows {
  byName: CompanyRef[];
  byFormerName: CompanyRef[];
  byDomain: CompanyRef[];
  persons: { id: string; record: string }[];
}

/**
 * A person query's whole candidate search in one statement (one round trip; at 1M the four it was
 * cost more in waits for a busy server than in reading): the employers by name, former name and
 * host (CTEs, each an indexed lookup with a bound), then the name-key arms at those employers (and
 * the query's company_id) and anywhere, then the records of the arms' ids. The employer IDs go to
 * the employer arm as one array (an InitPlan: its index condition takes the array as a parameter).
 * Rows: `arm` 'person' (id, record) or the field an employer was found by (id, company_id).
 */
export async function findPersonCandidatesAndEmployers(db: Knex, q: PersonSearch): Promise<PersonSearchRows> {
  const ctes: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const employerArms: string[] = [];
  const resolved: string[] = [];
  const cte = (arm: string, sql: string, ...values: Knex.RawBinding[]) => {
    ctes.push(`${arm} as (${sql})`);
    bindings.push(...values);
    employerArms.push(`select company_id from ${arm}`);
    resolved.push(`select '${arm}', id::text, company_id::text, null::text, null::text from ${arm}`);
  };
  if (q.company) {
    cte('by_name', `select id, company_id from companies where lake_company_key(name) = ? order by id limit ${COMPANY_NAME_LIMIT}`, q.company);
    cte('by_former', `select id, company_id from companies where id = any(array(${FORMER_NAME_SUBJECTS}))`, q.company);
  }
  if (q.hosts.length > 0) {
    cte('by_domain', `select id, company_id from companies where lake_web_host(record->>'website') = any(?::text[]) order by id limit ${COMPANY_HOST_LIMIT}`, [...q.hosts]);
  }
  const arms: string[] = [];
  if (q.keys.length > 0) {
    // Bindings in the order of their placeholders: the keys, then the query's own company IDs.
    if (q.companyIds.length > 0) employerArms.push('select unnest(?::bigint[])');
    if (employerArms.length > 0) {
      arms.push(`(select id from persons where lake_name_key(full_name) = any(?::text[])
        and current_company_id = any(array(${employerArms.join(' union ')})) limit ${PERSON_EMPLOYER_LIMIT})`);
      bindings.push([...q.keys]);
      if (q.companyIds.length > 0) bindings.push([...q.companyIds]);
    }
    arms.push(`(select id from persons where lake_name_key(full_name) = any(?::text[])
      order by similarity(lake_fold(full_name), ?) desc, id limit ${PERSON_KEY_LIMIT})`);
    bindings.push([...q.keys], q.name);
  }
  const parts = [...resolved];
  if (arms.length > 0) parts.unshift(`select 'person' as arm, id::text as id, null::text as company_id, ${RECORD_COLUMNS} from persons where id in (${arms.join(' union ')})`);
  if (parts.length === 0) return { byName: [], byFormerName: [], byDomain: [], persons: [] };
  const sql = `${ctes.length ? `with ${ctes.join(',\n')}\n` : ''}${parts.join('\nunion all ')}`;
  const { rows } = await db.raw<{ rows: { arm: string; id: string; company_id: string | null; record: string; fetched_at_text: string | null }[] }>(sql, bindings);
  const out: PersonSearchRows = { byName: [], byFormerName: [], byDomain: [], persons: [] };
  for (const row of rows) {
    if (row.arm === 'person') out.persons.push(served({ id: row.id, record: row.record, fetched_at_text: row.fetched_at_text }));
    else (row.arm === 'by_name' ? out.byName : row.arm === 'by_former' ? out.byFormerName : out.byDomain).push({ id: row.id, company_id: row.company_id! });
  }
  return out;
}

/**
 * Companies read by name key, by host, by former name (the bounds of their arms). A name key is
 * shared by up to 47 companies in the 1M world (1.2% of its companies are in groups above 20, the
 * bound before): a person at one of those was not looked for at their employer when it fell past
 * the bound (the first ones by id).
 */
const COMPANY_NAME_LIMIT = 64;
const COMPANY_HOST_LIMIT = 10;
const FORMER_NAME_LIMIT = 10;
/** The subjects of the latest rename from the company key `?` (the change log's `company.name_changed`). */
const FORMER_NAME_SUBJECTS = `select distinct on (subject_id) subject_id from change_log
  where kind = 'company' and event = 'company.name_changed' and subject_id is not null
    and lake_company_key(diff->>'old_name') = ? order by subject_id, id desc limit ${FORMER_NAME_LIMIT}`;

/** Candidate persons (served records) by name key, at the employers and anywhere. */
export async function findPersonsByNameKey(db: Knex, block: PersonBlock): Promise<{ id: string; record: string }[]> {
  return (await findPersonCandidatesAndEmployers(db, { ...block, company: null, hosts: [] })).persons;
}

/**
 * The similarity the trigram arm without an employer asks for (pg_trgm's `%` under
 * pg_trgm.similarity_threshold, whose default is 0.3). At 0.3 a name shares enough trigrams with
 * every person of its first name ("john smitj" with 1,216 of 98,000 persons, "maria garcai" with
 * 2,274), each then re-read and measured: 35 ms a call at 100k, ten times that at 1M. One typo in a
 * name of two words leaves a similarity of 0.5-0.7 (jane doe / jane deo 0.5, maria garcia / maria
 * garcai 0.67), and at 0.5 the GIN index itself leaves out the rest (120 and 50 rows).
 */
export const TRIGRAM_ANYWHERE_THRESHOLD = 0.5;
/**
 * At the query's employers the arm keeps 0.3: two typos in a short name fall below 0.5 (john smith /
 * jonh smiht 0.29, li wei / li wie 0.4), and asked at 0.5 there the typo class lost a tenth of its
 * recall (0.81 instead of 0.91 at 100k). The company filter bounds what it returns, not what the
 * trigram index reads.
 */
export const TRIGRAM_EMPLOYER_THRESHOLD = 0.3;

/**
 * Candidate persons whose folded name is similar to `name` (the GIN trigram index), anywhere at
 * TRIGRAM_ANYWHERE_THRESHOLD (unless `anywhere` is false) and at the employers, when some are known,
 * at TRIGRAM_EMPLOYER_THRESHOLD; the closest first. Each threshold is set for its own statement's
 * transaction only; one round trip: the settings and the reads go as one simple query (the values
 * as literals: db/literals.ts).
 *
 * On the distributed layout the `%` runs on the workers, and neither form reaches them: Citus does
 * not propagate set_config() (the shards kept pg_trgm's default 0.3 for both arms: more rows read
 * anywhere, and candidates below 0.5 that one server leaves out), and a SET LOCAL sent in the same
 * simple query as a distributed read fails ("cannot execute a distributed query from a query on a
 * shard", Citus 13.2). There each arm is a SET LOCAL and a read, separate statements in one
 * transaction: citus.propagate_set_commands = 'local' (db/citusLayout.ts) sends the setting to
 * the workers' transactions (test/citus/match.test.ts checks the answers against the threshold).
 */
export async function findPersonsByTrigram(
  db: Knex, name: string, companyIds: readonly string[], options: { anywhere?: boolean } = {},
): Promise<{ id: string; record: string }[]> {
  if (name.length < 3) return [];
  const anywhere = options.anywhere ?? true;
  if (!anywhere && companyIds.length === 0) return [];
  // A folded name (letters, digits, spaces: lake_fold's output) is written as a plain constant, which
  // the planner can estimate the trigram index by; anything else goes through literal().
  const n = /^[a-z0-9 ]+$/.test(name) ? `'${name}'` : literal(name);
  // lake_trgm_name(full_name) is lake_fold(full_name) (the same value), the expression of the
  // index persons_match_trgm (employer, trigrams), kept without statistics so that the planner
  // estimates `%` by pg_trgm's default and takes the employer into the index condition (migration
  // 20261211000300_match_employer_trigrams).
  const select = (where: string) =>
    `select id, ${RECORD_COLUMNS} from persons where id in (select id from persons where ${where}
       order by similarity(lake_fold(full_name), ${n}) desc, id limit ${PERSON_TRIGRAM_LIMIT})`;
  const arms: { threshold: number; sql: string }[] = anywhere ? [{ threshold: TRIGRAM_ANYWHERE_THRESHOLD, sql: select(`lake_trgm_name(full_name) % ${n}`) }] : [];
  if (companyIds.length > 0) {
    arms.push({
      threshold: TRIGRAM_EMPLOYER_THRESHOLD,
      sql: select(`current_company_id = any(${arrayLiteral(companyIds, 'bigint')}) and lake_trgm_name(full_name) % ${n}`),
    });
  }
  type Row = { id: string; record: string; fetched_at_text: string | null };
  let reads: Row[][];
  if (await hasIdentifierTable(db)) {
    reads = await db.transaction(async (trx) => {
      const out: Row[][] = [];
      for (const arm of arms) {
        await trx.raw(`set local pg_trgm.similarity_threshold = ${arm.threshold}`);
        out.push((await trx.raw<{ rows: Row[] }>(arm.sql)).rows);
      }
      return out;
    });
  } else {
    const statements = arms.map((arm) => `select set_config('pg_trgm.similarity_threshold', '${arm.threshold}', true);\n${arm.sql}`);
    const answer = (await db.raw(statements.join(';\n'))) as unknown as { rows: Row[] }[];
    // Results 1 and 3 are the reads (0 and 2 the settings; 1 alone when one arm is asked).
    reads = answer.filter((_, i) => i % 2 === 1).map((r) => r.rows);
  }
  const seen = new Set<string>();
  // A person found by both arms once.
  return reads
    .flat()
    .filter((row) => !seen.has(row.id) && seen.add(row.id))
    .map(served);
}

/** The served record texts of these persons (any order). */
export async function findPersonRecordTexts(db: Knex, ids: readonly string[]): Promise<{ id: string; record: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db('persons').whereRaw('id = any(?::uuid[])', [[...ids]]).select('id', db.raw(RECORD_COLUMNS));
  return (rows as { id: string; record: string; fetched_at_text: string | null }[]).map(served);
}

export interface CompanyRef {
  /** The service id (uuid). */
  id: string;
  /** The numeric company ID, as text. */
  company_id: string;
}

/** Companies whose website host is one of these. */
export async function findCompaniesByHost(db: Knex, hosts: readonly string[], limit = COMPANY_HOST_LIMIT): Promise<CompanyRef[]> {
  if (hosts.length === 0) return [];
  const { rows } = await db.raw<{ rows: CompanyRef[] }>(
    `select id, company_id::text as company_id from companies where lake_web_host(record->>'website') = any(?::text[]) order by id limit ${limit}`,
    [[...hosts]],
  );
  return rows;
}

/** Companies whose name key is this one. */
export async function findCompaniesByNameKey(db: Knex, key: string, limit = COMPANY_NAME_LIMIT): Promise<CompanyRef[]> {
  const { rows } = await db.raw<{ rows: CompanyRef[] }>(
    `select id, company_id::text as company_id from companies where lake_company_key(name) = ? order by id limit ${limit}`,
    [key],
  );
  return rows;
}

/** Companies whose name key is similar to this one (trigrams), the closest first. */
export async function findCompaniesBySimilarName(db: Knex, key: string, limit = 10): Promise<CompanyRef[]> {
  if (key.length < 3) return [];
  const { rows } = await db.raw<{ rows: CompanyRef[] }>(
    `select id, company_id::text as company_id from companies where lake_company_key(name) % ?
     order by similarity(lake_company_key(name), ?) desc, id limit ${limit}`,
    [key, key],
  );
  return rows;
}

/** Companies that had this name key before a rename (the change log's `company.name_changed`). */
export async function findCompaniesByFormerName(db: Knex, key: string, limit = FORMER_NAME_LIMIT): Promise<(CompanyRef & { former_name: string })[]> {
  const { rows } = await db.raw<{ rows: { subject_id: string; former_name: string }[] }>(
    `select distinct on (subject_id) subject_id, diff->>'old_name' as former_name from change_log
     where kind = 'company' and event = 'company.name_changed' and subject_id is not null
       and lake_company_key(diff->>'old_name') = ? order by subject_id, id desc limit ${limit}`,
    [key],
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.subject_id);
  const found = await db.raw<{ rows: CompanyRef[] }>(`select id, company_id::text as company_id from companies where id = any(?::uuid[])`, [ids]);
  const byId = new Map(found.rows.map((r) => [r.id, r]));
  return rows.flatMap((r) => {
    const c = byId.get(r.subject_id);
    return c ? [{ ...c, former_name: r.former_name }] : [];
  });
}

/** The former names of these companies (for the evidence of a company match). */
export async function findFormerCompanyNames(db: Knex, ids: readonly string[]): Promise<{ id: string; former_name: string }[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.raw<{ rows: { id: string; former_name: string }[] }>(
    `select subject_id as id, diff->>'old_name' as former_name from change_log
     where subject_id = any(?::uuid[]) and kind = 'company' and event = 'company.name_changed'`,
    [[...ids]],
  );
  return rows;
}

/** The served record texts of these companies (any order). */
export async function findCompanyRecordTexts(db: Knex, ids: readonly string[]): Promise<{ id: string; record: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db('companies').whereRaw('id = any(?::uuid[])', [[...ids]]).select('id', db.raw(RECORD_COLUMNS));
  return (rows as { id: string; record: string; fetched_at_text: string | null }[]).map(served);
}

/**
 * A random sample of record texts (for the match model's fit: u, the chance that a record that is
 * not the one asked for agrees by accident, is counted on random records). Reads a sample of the
 * table's pages, not the table.
 */
export async function sampleRecordTexts(db: Knex, kind: 'person' | 'company', percent: number, limit: number): Promise<{ id: string; record: string }[]> {
  const table = kind === 'person' ? 'persons' : 'companies';
  const { rows } = await db.raw<{ rows: { id: string; record: string; fetched_at_text: string | null }[] }>(
    `select id, ${RECORD_COLUMNS} from ${table} tablesample system (?) repeatable (42) limit ?`,
    [percent, limit],
  );
  return rows.map(served);
}
