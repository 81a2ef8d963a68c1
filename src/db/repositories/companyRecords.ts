/** The companies table; lake columns derived from the stored record in SQL, one statement per batch. */
import type { Knex } from 'knex';
import { dropIdentifiers, hasIdentifierTable, replaceIdentifiers } from './lakeIdentifiers';
import { lockKeysThenRead } from './locks';
import { arrayLiteral } from '../literals';
import { suppressedDigestsRead } from './suppressions';
import { deleteRecord, findFreshness, RECORD_COLUMNS, served, touchRecords, type TouchRow } from './lakeTables';
import { stagedInput } from './staging';
import { preparedQuery } from '../knex';
import type { CompanyRecord } from '../../model/records';

/** The columns a company is looked up by; each has a unique index. Values as identifiers.ts normalizes them. */
export type CompanyKeyColumn = 'id' | 'username' | 'company_id';

export async function findCompanyRecord(db: Knex, column: CompanyKeyColumn, value: string): Promise<CompanyRecord | undefined> {
  const row = await db('companies').where(column, value).first(db.raw(RECORD_COLUMNS));
  return row && (JSON.parse(served(row).record) as CompanyRecord);
}

/** Which of these company ids (lower-case) the lake stores. */
export async function storedCompanyIds(db: Knex, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows: { id: string }[] = await db('companies').whereIn('id', ids).select('id');
  return new Set(rows.map((r) => String(r.id).toLowerCase()));
}

/** The stored record as JSON text, for responses that pass it through unparsed. */
export async function findCompanyJson(db: Knex, column: CompanyKeyColumn, value: string): Promise<string | undefined> {
  const rows = await preparedQuery<{ record: string; fetched_at_text: string | null }>(
    db,
    `company_json_by_${column}`,
    `select ${RECORD_COLUMNS} from companies where ${column} = $1`,
    [value],
  );
  return rows[0] && served(rows[0]).record;
}

export interface CompanyCopy {
  id: string;
  username: string;
  company_id: string;
  fetched_at: Date;
  /** The stored record as JSON text. */
  record: string;
}

/** The stored copy with its freshness (realtime: cache or live). One indexed query, prepared. */
export async function findCompanyCopy(db: Knex, column: CompanyKeyColumn, value: string): Promise<CompanyCopy | undefined> {
  const rows = await preparedQuery<CompanyCopy & { fetched_at_text: string | null }>(
    db,
    `company_copy_by_${column}`,
    `select id, username, company_id::text as company_id, fetched_at, ${RECORD_COLUMNS} from companies where ${column} = $1`,
    [value],
  );
  return rows[0] && served(rows[0]);
}

export const findCompanyFreshness = (db: Knex, column: CompanyKeyColumn, value: string) => findFreshness(db, 'company', column, value);

/**
 * In the caller's transaction (a withdrawal). Distributed layout: the identifier rows' delete spans
 * shards and the company row is in a reference table, so the transaction's company writes run one
 * shard at a time (sequentialCompanyWrites), as the writer's do.
 */
export async function deleteCompany(trx: Knex.Transaction, id: string): Promise<boolean> {
  await sequentialCompanyWrites(trx);
  await dropIdentifiers(trx, 'company', [id]);
  return deleteRecord(trx, 'company', id);
}

/**
 * Inserts or replaces records by id; a record that takes over the username or company_id of another
 * id replaces that one. `records` must not repeat an id, username or company_id. `usernames[i]` is
 * the stored (normalized) username of `records[i]`, as for upsertPersons.
 */
export async function upsertCompanies(
  trx: Knex.Transaction,
  records: readonly CompanyRecord[],
  usernames: readonly string[],
  texts: readonly string[] = records.map((r) => JSON.stringify(r)),
): Promise<void> {
  if (!records.length) return;
  const ids = records.map((r) => r.id.toLowerCase());
  const companyIds = records.map((r) => r.company_id);
  const { rows: gone } = await trx.raw<{ rows: { id: string }[] }>(
    `delete from companies where (username = any(?::text[]) or company_id = any(?::bigint[])) and id <> all(?::uuid[]) returning id`,
    [usernames as string[], companyIds, ids],
  );
  const input = await stagedInput(trx, texts, usernames);
  // Materialized: otherwise the planner inlines `e::jsonb` into every field read, parsing each record
  // once per column (measured: 3,880 instead of 10,000+ records/s).
  await trx.raw(
    `with input as materialized (${input.sql})
     insert into companies (id, company_id, username, name, industries, staff_count, hq_country_code, hq_city,
       founded_year, fetched_at, industries_lower, search_words, record)
     select (r->>'id')::uuid, (r->>'company_id')::bigint, input.username, r->>'name',
       array(select jsonb_array_elements_text(r->'industries')), (r->>'staff_count')::int,
       upper(r->>'hq_country_code'), r->>'hq_city', (r->>'founded_year')::int, (r->>'fetched_at')::timestamptz,
       array(select lower(x) from jsonb_array_elements_text(r->'industries') x), lake_company_words(r), doc
     from input
     on conflict (id) do update set
       company_id = excluded.company_id, username = excluded.username, name = excluded.name,
       industries = excluded.industries, staff_count = excluded.staff_count,
       hq_country_code = excluded.hq_country_code, hq_city = excluded.hq_city,
       founded_year = excluded.founded_year, fetched_at = excluded.fetched_at,
       industries_lower = excluded.industries_lower, search_words = excluded.search_words, record = excluded.record, fetched_at_text = null`,
    input.bindings,
  );
  // The queue row of a company whose username or company_id another id took over goes with it: by
  // the foreign key's cascade, or here while an initial load has set the key aside (lakeIndexes.ts).
  if (gone.length) await trx.raw('delete from company_refresh where company_id = any(?::uuid[])', [gone.map((r) => r.id)]);
  await replaceIdentifiers(trx, 'company', ids, gone.map((r) => r.id));
  await trx.raw(
    `insert into company_refresh (company_id, checked_at) select id, fetched_at from companies where id = any(?::uuid[])
     on conflict (company_id) do update set checked_at = excluded.checked_at, lease_token = null, lease_until = null`,
    [ids],
  );
}

export interface StoredCompanyRow {
  id: string;
  username: string;
  company_id: string;
  /** The stored record as JSON text. */
  record: string;
}

/** A row as read with RECORD_COLUMNS, before `served`. */
type StoredCompanyJson = StoredCompanyRow & { fetched_at_text: string | null };

/**
 * As lockStoredPersons: the copies a batch will replace (same id, username or company_id), under
 * sorted advisory locks on those identities, then on the ids of rows found by another identity; and
 * which of `digests` are withdrawn, read under the same locks.
 */
export async function lockStoredCompanies(
  trx: Knex.Transaction,
  ids: readonly string[],
  usernames: readonly string[],
  companyIds: readonly string[],
  digests: readonly string[] = [],
): Promise<{ rows: StoredCompanyRow[]; withdrawn: Set<string> }> {
  if (!ids.length) return { rows: [], withdrawn: new Set() };
  const read = `select id, username, company_id::text as company_id, ${RECORD_COLUMNS} from companies
    where id = any(${arrayLiteral(ids, 'uuid')}) or username = any(${arrayLiteral(usernames, 'text')}) or company_id = any(${arrayLiteral(companyIds, 'bigint')})`;
  const locks = [...ids.map(companyIdLock), ...usernames.map((u) => `company:username:${u}`), ...companyIds.map((c) => `company:company_id:${c}`)];
  const [found, blocked] = (await lockKeysThenRead(trx, locks, [read, suppressedDigestsRead(digests)])) as [StoredCompanyJson[], { digest: string }[]];
  const stored: StoredCompanyRow[] = found.map(served);
  const withdrawn = new Set(blocked.map((r) => r.digest));
  const asked = new Set(ids.map((id) => id.toLowerCase()));
  const others = stored.filter((r) => !asked.has(r.id.toLowerCase()));
  if (!others.length) return { rows: stored, withdrawn };
  const [again] = (await lockKeysThenRead(trx, others.map((r) => companyIdLock(r.id)), [read])) as [StoredCompanyJson[]];
  return { rows: again.map(served), withdrawn };
}

/**
 * Distributed layout: the company writes of this transaction run one shard at a time. companies is
 * a reference table there, and the identifier table a distributed one: a multi-shard write done in
 * parallel (one connection per shard) followed by a write to the reference table fails ("cannot
 * execute DML on table companies because there was a parallel DML access"). Must come first in
 * the transaction; nothing on a single PostgreSQL.
 */
export async function sequentialCompanyWrites(trx: Knex.Transaction): Promise<void> {
  if (await hasIdentifierTable(trx)) await trx.raw("set local citus.multi_shard_modify_mode to 'sequential'");
}

/** The advisory lock of one company id (lockStoredCompanies). */
export const companyIdLock = (id: string) => `company:id:${id.toLowerCase()}`;

/** As touchPersons: only fetched_at and the queue row move. */
export const touchCompanies = (trx: Knex.Transaction, rows: readonly TouchRow[]) =>
  touchRecords(trx, 'company', rows);

/** VACUUM of the companies table: a deleted row's bytes stay in the table pages until then. */
export async function vacuumCompanies(db: Knex): Promise<void> {
  await db.raw('vacuum companies');
}
