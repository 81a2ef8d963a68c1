/**
 * The staging table of a write: a batch's records as JSON text, sent with `COPY` (pg-copy-streams)
 * rather than as one statement parameter, so the server reads them as a stream of rows instead of
 * parsing one JSON array of the whole batch and splitting it again. The lake columns are then
 * derived from the staged rows by the one upsert statement of each table (personRecords.ts,
 * companyRecords.ts), set-based, in the writer's transaction.
 *
 * The table is a temporary one of the connection, created once per connection and emptied at each
 * commit (`on commit delete rows`), so it costs no catalog write per batch and is never seen by
 * another session.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Knex } from 'knex';
import { hasIdentifierTable, hasShardStaging } from './lakeIdentifiers';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { copyChunks } from './copyChunks';

/**
 * COPY options under which each NDJSON line is one field as it is: CSV with a quote and a
 * delimiter that valid JSON text never holds unescaped (control characters 0x01 and 0x02 must be
 * escaped in JSON strings), so backslashes and quotes pass untouched (text format would unescape
 * them).
 */
export const NDJSON_COPY_OPTIONS = "with (format csv, quote e'\\x01', delimiter e'\\x02')";

/** Below this many records a batch goes as a statement parameter: a COPY is a round trip more. */
export const STAGING_MIN_RECORDS = 50;

type Connection = PoolClient;

/** The size of one COPY message of staged rows (stageRecords): large enough to be few, small enough to stream. */
const COPY_CHUNK_CHARS = 256 * 1024;

/** The transaction's own connection (knex hands a transaction's client its connection). */
export async function connectionOf(trx: Knex.Transaction): Promise<Connection> {
  return (trx.client as unknown as { acquireConnection(): Promise<Connection> }).acquireConnection();
}

/** Whether the rows can go through COPY as they are (no control character in a username). */
export function stageable(usernames: readonly string[]): boolean {
  return usernames.every((u) => !/[\x00-\x1f]/.test(u));
}

/**
 * Stages `docs[i]` (a record's JSON text) with `usernames[i]` as row `n = i + 1` of the
 * transaction's staging table, replacing what an earlier batch of the same transaction staged.
 */
export async function stageRecords(trx: Knex.Transaction, docs: readonly string[], usernames: readonly string[]): Promise<void> {
  const connection = await connectionOf(trx);
  // Created when missing (a rolled-back transaction takes a table it created with it), emptied of
  // an earlier batch of the same transaction; one round trip. JIT off for the rest of the write's
  // transaction: the staged table has no statistics, so the upsert's estimates cross the JIT
  // thresholds of a server left at its defaults, and compiling costs more than it saves on a batch
  // (measured 33 ms per 1,000 persons).
  await connection.query(
    'create temporary table if not exists lake_staging (n integer, username text, doc text) on commit delete rows; truncate lake_staging; set local jit = off',
  );
  // Each row: n, username, doc; the delimiter and quote of NDJSON_COPY_OPTIONS never occur in them
  // (usernames are normalized identifiers without control characters; docs are JSON.stringify output).
  // Rows go in chunks of about COPY_CHUNK_CHARS bytes: one COPY message and one socket write per
  // chunk instead of per row (a row per write was a tenth of a refresh worker's CPU in socket writes),
  // each row encoded straight into its chunk's buffer (copyChunks.ts says why not joined first).
  const rows = function* () {
    for (let i = 0; i < docs.length; i += 1) yield `${i + 1}\x02${usernames[i]}\x02${docs[i]}\n`;
  };
  await pipeline(Readable.from(copyChunks(rows(), COPY_CHUNK_CHARS)), connection.query(copyFrom(`copy lake_staging (n, username, doc) from stdin ${NDJSON_COPY_OPTIONS}`)));
}

/**
 * The `input` rows of a batch's upsert (`r` the record as jsonb to read fields from, `doc` the text
 * to store, `username` its stored username), as SQL and its bindings: from the staging table, or,
 * for a small batch or one whose rows cannot go through COPY as they are, from one JSON array
 * parameter. Either way the upsert that derives the lake columns from `input` is the same statement.
 */
export async function stagedInput(
  trx: Knex.Transaction,
  texts: readonly string[],
  usernames: readonly string[],
): Promise<{ sql: string; bindings: Knex.RawBinding[] }> {
  // Not on the distributed layout: a transaction that touched a temporary table cannot be
  // prepared, and Citus commits a multi-node write with two-phase commit (PREPARE TRANSACTION).
  if (texts.length >= STAGING_MIN_RECORDS && stageable(usernames) && !(await hasIdentifierTable(trx))) {
    await stageRecords(trx, texts, usernames);
    return { sql: 'select doc::jsonb as r, doc::json as doc, username from lake_staging', bindings: [] };
  }
  return {
    sql: `select e::jsonb as r, e as doc, u.username
       from json_array_elements(?::json) with ordinality as j(e, n)
       join unnest(?::text[]) with ordinality as u(username, n) using (n)`,
    bindings: [`[${texts.join(',')}]`, usernames as string[]],
  };
}

/**
 * On the distributed layout: stages a batch of persons in `person_staging` (citusLayout.ts),
 * distributed by person id and co-located with persons, so that the upsert's `INSERT … SELECT`
 * from it runs inside each shard (Citus pushes it down) and the workers parse the JSON, not the
 * coordinator. COPY sends the text as it is (the coordinator routes each row by its id; a text
 * column is not parsed). The rows are the transaction's own: no other session sees uncommitted
 * rows, and `unstageOnShards` deletes them before the commit. Returns false where it does not apply
 * (a single PostgreSQL, a layout from before the table existed, a small batch, a username COPY
 * cannot carry as it is): the caller then writes from one JSON parameter, parsed where it runs.
 */
export async function stageOnShards(
  trx: Knex.Transaction,
  ids: readonly string[],
  texts: readonly string[],
  usernames: readonly string[],
): Promise<boolean> {
  if (texts.length < STAGING_MIN_RECORDS || !stageable(usernames) || !(await hasShardStaging(trx))) return false;
  const connection = await connectionOf(trx);
  const rows = function* () {
    for (let i = 0; i < texts.length; i += 1) yield `${ids[i]}\x02${usernames[i]}\x02${texts[i]}\n`;
  };
  await pipeline(Readable.from(rows()), connection.query(copyFrom(`copy person_staging (person_id, username, doc) from stdin ${NDJSON_COPY_OPTIONS}`)));
  return true;
}

/** Removes a batch staged by stageOnShards (only the shards of its ids are visited). */
export async function unstageOnShards(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  await trx.raw('delete from person_staging where person_id = any(?::uuid[])', [ids as string[]]);
}

/**
 * The `input` rows of a batch staged by stageOnShards, as a sub-query to select from (columns `id`,
 * `username`, `r`, `doc` as stagedInput's, and `lake_position_facts`'s). `OFFSET 0` keeps the parse
 * a sub-query of its own, so each record's text is parsed once per statement, not once per field
 * read from it; Citus pushes such a correlated sub-query down with the rest. `?` is the batch's ids.
 */
export const SHARD_STAGED_INPUT = `(select s.person_id as id, s.username, j.r, j.doc, facts.*
   from person_staging s, lateral (select s.doc::jsonb as r, s.doc::json as doc offset 0) j, lateral lake_position_facts(j.r) facts
   where s.person_id = any(?::uuid[])) input`;
