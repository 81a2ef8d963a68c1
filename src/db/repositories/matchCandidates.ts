/**
 * Candidate search for matching (blocking): the only stage of matching that reads the database.
 * Every arm is one indexed lookup with a bound on its rows (migration 20261208000100_match), so a
 * match never scans the lake; test/integration/match/candidateExplain.test.ts shows the plans.
 *
 * Persons, by the name key (`lake_name_key(full_name)`, the last word of the name; the query passes
 * every word of its name, so a swapped name still meets its key):
 *   - at the resolved employers: (name key, current_company_id) = index persons_match_name_key;
 *   - anywhere: the same index's first column, the closest names first (similarity of the folded
 *     names), at most PERSON_KEY_LIMIT rows;
 *   - typos in the last name: the trigram index persons_match_name_trgm, asked only when the first
 *     arms found no candidate whose name agrees (domain/match/candidates.ts decides).
 * Companies: by website host, by name key, by trigrams of the name key, by a former name (the
 * change log's renames).
 *
 * On the distributed layout (docs/scale-out.md) persons are distributed by id, so every person arm
 * fans out to all shards (each shard applies the LIMIT, the coordinator merges); companies and the
 * change log are not distributed (reference / local tables): their arms run on one node.
 * Each person statement selects the records of its arms' ids by primary key in the same round trip.
 */
import type { Knex } from 'knex';
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

/** Candidate persons (served records) by name key, at the employers and anywhere. */
export async function findPersonsByNameKey(db: Knex, block: PersonBlock): Promise<{ id: string; record: string }[]> {
  if (block.keys.length === 0) return [];
  const arms: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  if (block.companyIds.length > 0) {
    arms.push(`(select id from persons where lake_name_key(full_name) = any(?::text[]) and current_company_id = any(?::bigint[]) limit ${PERSON_EMPLOYER_LIMIT})`);
    bindings.push([...block.keys], [...block.companyIds]);
  }
  arms.push(`(select id from persons where lake_name_key(full_name) = any(?::text[])
    order by similarity(lake_fold(full_name), ?) desc, id limit ${PERSON_KEY_LIMIT})`);
  bindings.push([...block.keys], block.name);
  return recordsOf(db, arms, bindings);
}

/** The served records of the union of the arms, in one round trip (the arms' ids, then those rows by primary key). */
async function recordsOf(db: Knex, arms: string[], bindings: Knex.RawBinding[]): Promise<{ id: string; record: string }[]> {
  const { rows } = await db.raw<{ rows: { id: string; record: string; fetched_at_text: string | null }[] }>(
    `select id, ${RECORD_COLUMNS} from persons where id in (${arms.join(' union ')})`,
    bindings,
  );
  return rows.map(served);
}

/**
 * Candidate persons whose folded name is similar to `name` (pg_trgm's `%`, similarity ≥ 0.3),
 * at the employers when some are known, else anywhere; the closest first.
 */
export async function findPersonsByTrigram(db: Knex, name: string, companyIds: readonly string[]): Promise<{ id: string; record: string }[]> {
  if (name.length < 3) return [];
  const arms = [`(select id from persons where lake_fold(full_name) % ? order by similarity(lake_fold(full_name), ?) desc, id limit ${PERSON_TRIGRAM_LIMIT})`];
  const bindings: Knex.RawBinding[] = [name, name];
  if (companyIds.length > 0) {
    arms.push(`(select id from persons where current_company_id = any(?::bigint[]) and lake_fold(full_name) % ? limit ${PERSON_TRIGRAM_LIMIT})`);
    bindings.push([...companyIds], name);
  }
  return recordsOf(db, arms, bindings);
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
export async function findCompaniesByHost(db: Knex, hosts: readonly string[], limit = 10): Promise<CompanyRef[]> {
  if (hosts.length === 0) return [];
  const { rows } = await db.raw<{ rows: CompanyRef[] }>(
    `select id, company_id::text as company_id from companies where lake_web_host(record->>'website') = any(?::text[]) order by id limit ${limit}`,
    [[...hosts]],
  );
  return rows;
}

/** Companies whose name key is this one. */
export async function findCompaniesByNameKey(db: Knex, key: string, limit = 20): Promise<CompanyRef[]> {
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
export async function findCompaniesByFormerName(db: Knex, key: string, limit = 10): Promise<(CompanyRef & { former_name: string })[]> {
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
