/**
 * The persons table and its index tables (person_positions, person_educations). The lake columns are
 * derived here from the stored record, in SQL, in one statement per batch.
 */
import type { Knex } from 'knex';
import { preparedQuery } from '../knex';
import { dropIdentifiers, identifiersOf, idsByIdentifier, knownIdentifierTable, replaceIdentifiers } from './lakeIdentifiers';
import { lockKeysThenRead } from './locks';
import { arrayLiteral } from '../literals';
import { suppressedDigestsRead } from './suppressions';
import { deleteRecord, RECORD_COLUMNS, served, touchRecords, type TouchRow } from './lakeTables';
import { connectionOf, SHARD_STAGED_INPUT, stagedInput, stageOnShards, unstageOnShards } from './staging';
import type { PersonRecord } from '../../model/records';
import { servedText } from '../../model/recordText';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { copyChunks } from './copyChunks';
import { from as copyFrom } from 'pg-copy-streams';

/** The columns a person is looked up by; each has a unique index. Values as identifiers.ts normalizes them. */
export type PersonKeyColumn = 'id' | 'username' | 'network_id' | 'network_urn';

/**
 * Where a lookup by `column` reads: the column itself on a single PostgreSQL; on the distributed
 * layout, the record's id found in the identifier table (lakeIdentifiers.ts), so both reads route
 * to one shard. Null: no record has that identifier.
 */
async function routed(db: Knex, column: PersonKeyColumn, value: string): Promise<{ column: PersonKeyColumn; value: string } | null> {
  if (column === 'id') return { column, value };
  const ids = await idsByIdentifier(db, 'person', column, [value]);
  if (ids === undefined) return { column, value };
  return ids.length ? { column: 'id', value: ids[0]! } : null;
}

export async function findPersonRecord(db: Knex, by: PersonKeyColumn, key: string): Promise<PersonRecord | undefined> {
  const at = await routed(db, by, key);
  if (!at) return undefined;
  const { column, value } = at;
  const row = await db('persons').where(column, value).first(db.raw(RECORD_COLUMNS));
  return row && (JSON.parse(served(row).record) as PersonRecord);
}

/** The stored record as JSON text, for responses that pass it through unparsed. */
export function findPersonJson(db: Knex, by: PersonKeyColumn, key: string): Promise<string | undefined> {
  // A single PostgreSQL, once known (or a lookup by id): the column itself, without routed()'s awaits.
  if (by === 'id' || knownIdentifierTable(db) === false) return jsonByColumn(db, by, key);
  return routed(db, by, key).then((at) => (at ? jsonByColumn(db, at.column, at.value) : undefined));
}

function jsonByColumn(db: Knex, column: PersonKeyColumn, value: string): Promise<string | undefined> {
  return preparedQuery<{ record: string; fetched_at_text: string | null }>(db, JSON_BY[column].name, JSON_BY[column].text, [value]).then(
    // served(row).record, without the copy of the row it makes.
    (rows) => rows[0] && servedText(rows[0].record, rows[0].fetched_at_text),
  );
}

/** The statement of findPersonJson per column, written once. */
const JSON_BY = Object.fromEntries(
  (['id', 'username', 'network_id', 'network_urn'] as const).map((column) => [
    column,
    { name: `person_json_by_${column}`, text: `select ${RECORD_COLUMNS} from persons where ${column} = $1` },
  ]),
) as Record<PersonKeyColumn, { name: string; text: string }>;

export interface LakeCopy {
  id: string;
  username: string;
  fetched_at: Date;
  /** The stored record as JSON text. */
  record: string;
}

/** The stored copy with its freshness (realtime: cache or live). One indexed query, prepared. */
export async function findPersonCopy(db: Knex, by: PersonKeyColumn, key: string): Promise<LakeCopy | undefined> {
  const at = await routed(db, by, key);
  if (!at) return undefined;
  const { column, value } = at;
  const rows = await preparedQuery<LakeCopy & { fetched_at_text: string | null }>(
    db,
    `person_copy_by_${column}`,
    `select id, username, fetched_at, ${RECORD_COLUMNS} from persons where ${column} = $1`,
    [value],
  );
  return rows[0] && served(rows[0]);
}

export interface PersonJsonRow {
  id: string;
  username: string;
  /** The stored record as JSON text. */
  record: string;
}

/** A row as read with RECORD_COLUMNS, before `served`. */
type StoredPersonJson = PersonJsonRow & { fetched_at_text: string | null };

/**
 * Every stored record with one of the usernames or one of the ids, in one query whatever the
 * number of keys (bulk lookups). Usernames must be lower-case and ids UUIDs, as identifiers.ts
 * leaves them. Not a preparedQuery: planning once per request is nothing next to up to 500 rows,
 * and as a knex query it is seen by knex's query events like the rest.
 */
export async function findPersonsJson(
  db: Knex,
  keys: { usernames: readonly string[]; ids: readonly string[] },
): Promise<PersonJsonRow[]> {
  if (!keys.usernames.length && !keys.ids.length) return [];
  // Distributed layout: the usernames' ids from the identifier table, then every row by id, so
  // only the shards holding them are read.
  const byUsername = await idsByIdentifier(db, 'person', 'username', keys.usernames);
  if (byUsername !== undefined) {
    // `id = any(...)` alone: an OR with another column would keep Citus from pruning the shards.
    const { rows } = await db.raw<{ rows: StoredPersonJson[] }>(
      `select id, username, ${RECORD_COLUMNS} from persons where id = any(?::uuid[])`,
      [[...keys.ids, ...byUsername]],
    );
    return rows.map(served);
  }
  const { rows } = await db.raw<{ rows: StoredPersonJson[] }>(
    `select id, username, ${RECORD_COLUMNS} from persons where username = any(?::text[]) or id = any(?::uuid[])`,
    [keys.usernames as string[], keys.ids as string[]],
  );
  return rows.map(served);
}

export async function findPersonFreshness(
  db: Knex,
  by: PersonKeyColumn,
  key: string,
): Promise<{ id: string; fetched_at: Date } | undefined> {
  const at = await routed(db, by, key);
  if (!at) return undefined;
  const { column, value } = at;
  return db('persons').where(column, value).first('id', 'fetched_at');
}

export async function countPersons(db: Knex): Promise<number> {
  const row = await db('persons').count<{ count: number }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export async function deletePerson(db: Knex, id: string): Promise<boolean> {
  await dropIdentifiers(db, 'person', [id]);
  return deleteRecord(db, 'person', id);
}

/**
 * The lake rows of a batch, derived in SQL from its `input` rows (`username`, `r` the record as
 * jsonb to read fields from, `doc` the text to store, and lake_position_facts's columns: the
 * previous employer, job change, past-employee ordinals and current start from one pass over the
 * positions, migration 20261203000100_import_position_facts). Each takes the FROM item to read
 * `input` from (the single-node statement's materialized CTE, or the distributed layout's staged
 * rows, staging.ts SHARD_STAGED_INPUT) and the person id's expression: the record's own on one
 * server, the staged rows' distribution column on the distributed layout (Citus pushes an
 * INSERT … SELECT down only when the target's distribution column is the source's). Measured on one
 * server, a precomputed id column in the CTE made the statement 5 % slower than reading it from
 * the record.
 */
const ID_FROM_RECORD = "(r->>'id')::uuid";

const PERSON_UPSERT = (from: string, id: string) => `insert into persons (id, username, network_id, network_urn, full_name, current_title,
     current_company, current_company_id, current_company_industry, seniority, geo_country_code, geo_city,
     current_started_on, fetched_at, skills, previous_company_id, previous_company, changed_employer, record)
   select ${id}, input.username, r->>'network_id', r->>'network_urn', r->>'full_name',
     r->>'current_title', r->>'current_company', lake_bigint(r->>'current_company_id'),
     r->>'current_company_industry', r->>'seniority', upper(r->>'geo_country_code'), r->>'geo_city',
     input.current_started_on, (r->>'fetched_at')::timestamptz, lake_skills(r), lake_bigint(previous->>'companyId'),
     previous->>'companyName', input.changed_employer, doc
   from ${from}
   on conflict (id) do update set
     username = excluded.username, network_id = excluded.network_id, network_urn = excluded.network_urn,
     full_name = excluded.full_name, current_title = excluded.current_title,
     current_company = excluded.current_company, current_company_id = excluded.current_company_id,
     current_company_industry = excluded.current_company_industry, seniority = excluded.seniority,
     geo_country_code = excluded.geo_country_code, geo_city = excluded.geo_city,
     current_started_on = excluded.current_started_on, fetched_at = excluded.fetched_at, skills = excluded.skills,
     previous_company_id = excluded.previous_company_id, previous_company = excluded.previous_company,
     changed_employer = excluded.changed_employer, record = excluded.record, fetched_at_text = null`;

const POSITION_INSERT = (from: string, id: string) => `insert into person_positions (person_id, ordinal, company_id, company_name, title,
     is_current, started_on, ended_on, latest_past)
   select ${id}, p.ord - 1, lake_bigint(p.pos->>'companyId'), p.pos->>'companyName', p.pos->>'title',
     coalesce((p.pos->>'isCurrent')::boolean, false),
     lake_date((p.pos->>'startYear')::int, (p.pos->>'startMonth')::int),
     lake_date((p.pos->>'endYear')::int, (p.pos->>'endMonth')::int),
     (p.ord - 1)::int = any(past_ordinals)
   from ${from}, jsonb_array_elements(r->'positions') with ordinality p(pos, ord)`;

const EDUCATION_INSERT = (from: string, id: string) => `insert into person_educations (person_id, ordinal, school_name)
   select ${id}, e.ord - 1, e.edu->>'schoolName'
   from ${from}, jsonb_array_elements(r->'educations') with ordinality e(edu, ord)
   where coalesce(e.edu->>'schoolName', '') <> ''`;

/**
 * The ids of stored persons (not in `ids`) whose username one of `usernames` takes over, deleted
 * (the username is the profile's public identity). On the distributed layout their ids come from
 * the identifier table first, so the delete visits only their shards.
 */
async function takenOver(trx: Knex.Transaction, usernames: readonly string[], ids: readonly string[]): Promise<string[]> {
  const holders = await idsByIdentifier(trx, 'person', 'username', usernames);
  if (holders !== undefined) {
    const asked = new Set(ids);
    const others = holders.filter((id) => !asked.has(id.toLowerCase()));
    if (!others.length) return [];
    const { rows } = await trx.raw<{ rows: { id: string }[] }>('delete from persons where id = any(?::uuid[]) returning id', [others]);
    return rows.map((r) => r.id);
  }
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    'delete from persons where username = any(?::text[]) and id <> all(?::uuid[]) returning id',
    [usernames as string[], ids as string[]],
  );
  return rows.map((r) => r.id);
}

/**
 * Inserts or replaces records by id. A record that takes over the username of another id replaces
 * that one (the username is the profile's public identity). `records` must not repeat an id or a
 * username (the caller dedupes: ON CONFLICT cannot touch one row twice in a statement).
 * `usernames[i]` is the stored (normalized) username of `records[i]`: the normalization is the
 * domain's (lake/identifiers.ts), never SQL lower(), which depends on the database's LC_CTYPE.
 */
export async function upsertPersons(
  trx: Knex.Transaction,
  records: readonly PersonRecord[],
  usernames: readonly string[],
  texts: readonly string[] = records.map((r) => JSON.stringify(r)),
): Promise<void> {
  if (!records.length) return;
  const ids = records.map((r) => r.id.toLowerCase());
  // The distributed layout's identifier rows as they stand: after the write only what changed moves.
  const identifiers = await identifiersOf(trx, 'person', ids);
  const gone = await takenOver(trx, usernames, ids);
  await trx.raw('delete from person_positions where person_id = any(?::uuid[])', [ids]);
  await trx.raw('delete from person_educations where person_id = any(?::uuid[])', [ids]);
  if (await stageOnShards(trx, ids, texts, usernames)) {
    // The distributed layout: one statement per table, each run inside the shards of the batch's
    // ids (an INSERT … SELECT between co-located tables), so the workers parse the records.
    for (const write of [PERSON_UPSERT, POSITION_INSERT, EDUCATION_INSERT]) await trx.raw(write(SHARD_STAGED_INPUT, 'input.id'), [ids]);
    await unstageOnShards(trx, ids);
  } else {
    const input = await stagedInput(trx, texts, usernames);
    // One statement, so the batch's JSON is parsed once (parsing is most of the cost) and shared by
    // the three inserts through a materialized CTE.
    await trx.raw(
      `with input as materialized (
         select staged.*, facts.previous, facts.changed_employer, facts.past_ordinals, facts.current_started_on
         from (${input.sql}) staged, lateral lake_position_facts(staged.r) facts),
       upserted as (${PERSON_UPSERT('input', ID_FROM_RECORD)} returning 1),
       positions as (${POSITION_INSERT('input', ID_FROM_RECORD)} returning 1),
       educations as (${EDUCATION_INSERT('input', ID_FROM_RECORD)} returning 1)
       select (select count(*) from upserted) as persons, (select count(*) from positions) as positions,
         (select count(*) from educations) as educations`,
      input.bindings,
    );
  }
  // The index tables of a person whose username another id took over go with it: by the foreign
  // keys' cascade, or here while an initial load has set the foreign keys aside (lakeIndexes.ts).
  if (gone.length) {
    await trx.raw('delete from person_positions where person_id = any(?::uuid[])', [gone]);
    await trx.raw('delete from person_educations where person_id = any(?::uuid[])', [gone]);
    await trx.raw('delete from person_refresh where person_id = any(?::uuid[])', [gone]);
  }
  // The distributed layout's identifier table follows the record in the same transaction.
  await replaceIdentifiers(trx, 'person', ids, gone, identifiers);
  // The refresh queue row follows the record: due again by its (new) fetched_at, any lease void.
  await trx.raw(
    `insert into person_refresh (person_id, checked_at) select id, fetched_at from persons where id = any(?::uuid[])
     on conflict (person_id) do update set checked_at = excluded.checked_at, lease_token = null, lease_until = null`,
    [ids],
  );
}

export interface StoredRow {
  id: string;
  username: string;
  /** The stored record as JSON text. */
  record: string;
}

/**
 * The stored copies a batch of writes will replace (same id, or same username), locked until the
 * transaction ends so concurrent writers of one record diff against each other's result, never
 * against the same old copy; and, read under the same locks, which of `digests` (the batch's
 * identifier digests) are withdrawn. The locks are advisory locks on the identities (locks.ts
 * lockKeysThenRead: sorted, so two batches cannot deadlock on them, and the reads in the same round
 * trip), not `FOR UPDATE` on the rows, which a distributed planner refuses across shards. A stored
 * row found by username under another id is then locked by its id too, and the rows read again
 * under that lock.
 */
export async function lockStoredPersons(
  trx: Knex.Transaction,
  ids: readonly string[],
  usernames: readonly string[],
  digests: readonly string[] = [],
): Promise<{ rows: StoredRow[]; withdrawn: Set<string> }> {
  if (!ids.length) return { rows: [], withdrawn: new Set() };
  const read = `select id, username, ${RECORD_COLUMNS} from persons where id = any(${arrayLiteral(ids, 'uuid')}) or username = any(${arrayLiteral(usernames, 'text')})`;
  const locks = [...ids.map(personIdLock), ...usernames.map((u) => `person:username:${u}`)];
  const [found, blocked] = (await lockKeysThenRead(trx, locks, [read, suppressedDigestsRead(digests)])) as [StoredPersonJson[], { digest: string }[]];
  const stored: StoredRow[] = found.map(served);
  const withdrawn = new Set(blocked.map((r) => r.digest));
  const asked = new Set(ids.map((id) => id.toLowerCase()));
  const others = stored.filter((r) => !asked.has(r.id.toLowerCase()));
  if (!others.length) return { rows: stored, withdrawn };
  const [again] = (await lockKeysThenRead(trx, others.map((r) => personIdLock(r.id)), [read])) as [StoredPersonJson[]];
  return { rows: again.map(served), withdrawn };
}

/** The advisory lock of one person id (lockStoredPersons); every writer of a persons row takes it. */
export const personIdLock = (id: string) => `person:id:${id.toLowerCase()}`;

/** A person whose content is unchanged: only fetched_at and its queue row move (lakeTables.ts touchRecords). */
export const touchPersons = (trx: Knex.Transaction, rows: readonly TouchRow[]) =>
  touchRecords(trx, 'person', rows);

/** Any one username, for the demo's ready-to-paste curl line. */
export async function samplePersonUsername(db: Knex): Promise<string | undefined> {
  const row = await db('persons').orderBy('username').first('username');
  return row?.username;
}

/** VACUUM of the person tables: a deleted row's bytes stay in the table pages until then. */
export async function vacuumPersons(db: Knex): Promise<void> {
  await db.raw('vacuum persons, person_positions, person_educations');
}

/**
 * Which of `ids` (lower-case UUIDs) and `usernames` (stored form) a stored person holds: the unique
 * keys a COPY of new persons would meet (initial load, writer.ts loadRecords). One statement on the
 * primary key and the username's unique index (both kept during an initial load).
 */
export async function storedPersonKeys(
  trx: Knex.Transaction,
  ids: readonly string[],
  usernames: readonly string[],
): Promise<{ ids: Set<string>; usernames: Set<string> }> {
  if (!ids.length && !usernames.length) return { ids: new Set(), usernames: new Set() };
  const { rows } = await trx.raw<{ rows: { id: string; username: string }[] }>(
    'select id::text as id, username from persons where id = any(?::uuid[]) or username = any(?::text[])',
    [ids as string[], usernames as string[]],
  );
  return { ids: new Set(rows.map((r) => r.id)), usernames: new Set(rows.map((r) => r.username)) };
}

/**
 * The typed rows of new persons, as lines of COPY's text format (domain/lake/write/rows.ts); each
 * table's strings are sent one after the other, so a line may come in pieces (persons: its columns,
 * its stored text, a newline).
 */
export interface PersonCopyRows {
  persons: readonly (string | Buffer)[];
  positions: readonly string[];
  educations: readonly string[];
  refresh: readonly string[];
}

/** The columns of each table's lines in PersonCopyRows, in order. */
export const PERSON_COPY_TABLES = {
  persons: 'persons (id, username, network_id, network_urn, full_name, current_title, current_company, current_company_id, current_company_industry, seniority, geo_country_code, geo_city, current_started_on, fetched_at, skills, previous_company_id, previous_company, changed_employer, record)',
  positions: 'person_positions (person_id, ordinal, company_id, company_name, title, is_current, started_on, ended_on, latest_past)',
  educations: 'person_educations (person_id, ordinal, school_name)',
  refresh: 'person_refresh (person_id, checked_at)',
} as const;

/**
 * Inserts new persons (none of them stored yet) with their index-table and refresh-queue rows, by
 * one COPY per table on the transaction's connection: no JSON parsed by the server, no rule run.
 * A person already stored (same id or username) fails the whole call with a unique violation
 * (SQLSTATE 23505), a value a column refuses with a data exception: the caller, which runs it in a
 * savepoint, then writes the batch through upsertPersons.
 */
export async function copyNewPersons(trx: Knex.Transaction, rows: PersonCopyRows): Promise<void> {
  const connection = await connectionOf(trx);
  for (const table of ['persons', 'positions', 'educations', 'refresh'] as const) {
    if (!rows[table].length) continue;
    await pipeline(Readable.from(copyChunks(rows[table])), connection.query(copyFrom(`copy ${PERSON_COPY_TABLES[table]} from stdin`)));
  }
}


/**
 * The columns whose rule maps letter case (lower/upper), set by the SQL rules themselves for the
 * persons whose text is not ASCII (rows.ts says why): skills, the country code, the job change.
 */
export async function applyPersonSqlRules(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await trx.raw(
    `update persons set skills = lake_skills(record::jsonb), geo_country_code = upper(record->>'geo_country_code'),
       changed_employer = coalesce(lake_changed_employer(record::jsonb), false)
     where id = any(?::uuid[])`,
    [ids as string[]],
  );
}
