/**
 * The identifier table (`lake_identifiers`) of the distributed layout (docs/scale-out.md, created by
 * `enrich distribute`, db/citusLayout.ts): one row per lookup identifier of a lake record, hash-
 * distributed by the identifier's value, so a lookup by username, network_id, network_urn or
 * company_id reads one shard of it for the record's id, then one shard of the lake by that id.
 * Citus cannot enforce `UNIQUE(username)` on persons distributed by id; the partial unique index of
 * this table (its distribution column first) enforces it instead.
 *
 * On a single PostgreSQL the table does not exist: the lake's own unique indexes serve lookups and
 * uniqueness, and every function here does nothing (one cached check per database client).
 */
import type { Knex } from 'knex';
import { preparedQuery } from '../knex';

/** The identifiers kept per lake kind, as `<kind>:<column>`; the column is the lake table's. */
export const IDENTIFIER_COLUMNS = {
  person: ['username', 'network_id', 'network_urn'],
  company: ['username', 'company_id'],
} as const;

export type IdentifierKind = keyof typeof IDENTIFIER_COLUMNS;

/** Identifiers that name one record at most (a unique index in this table). */
export const UNIQUE_IDENTIFIERS = ['person:username', 'company:username', 'company:company_id'] as const;

const LAKE_TABLE = { person: 'persons', company: 'companies' } as const;

/** What `enrich distribute` created in this database (db/citusLayout.ts); all false on a single PostgreSQL. */
interface Layout {
  /** lake_identifiers: the distributed layout is applied. */
  identifiers: boolean;
  /** person_staging: the writer's staging table co-located with persons (staging.ts stageOnShards). */
  staging: boolean;
  /** The Citus setting that lets a count run per shard exists (personHits.ts countMatches). */
  countPushdown: boolean;
}

// Keyed by the knex client, which a knex instance and its transactions share.
const layouts = new WeakMap<object, Promise<Layout>>();
/** The same answers once they have arrived, for the callers that can use them without waiting (knownIdentifierTable). */
const settled = new WeakMap<object, Layout>();

/**
 * The distributed layout's tables in this database. Checked once per client: `enrich distribute`
 * is run before the service serves from the layout (docs/scale-out.md).
 */
function layoutOf(db: Knex | Knex.Transaction): Promise<Layout> {
  const key = clientKey(db);
  let known = layouts.get(key);
  if (!known) {
    known = db
      .raw<{ rows: Layout[] }>(
        `select to_regclass('lake_identifiers') is not null as identifiers, to_regclass('person_staging') is not null as staging,
           current_setting('citus.subquery_pushdown', true) is not null as "countPushdown"`,
      )
      .then((r) => {
        settled.set(key, r.rows[0]!);
        return r.rows[0]!;
      });
    // A failed check (database down) is not remembered: the next call asks again.
    known.catch(() => layouts.delete(key));
    layouts.set(key, known);
  }
  return known;
}

/** Whether this database has the identifier table (the distributed layout). */
export async function hasIdentifierTable(db: Knex | Knex.Transaction): Promise<boolean> {
  return (await layoutOf(db)).identifiers;
}

/**
 * Whether a bounded count can run per shard on the distributed layout: Citus keeps the setting it
 * needs only for compatibility, so a version without it gets the count on the coordinator instead.
 */
export async function hasCountPushdown(db: Knex | Knex.Transaction): Promise<boolean> {
  const layout = await layoutOf(db);
  return layout.identifiers && layout.countPushdown;
}

/** Whether the writer can stage a batch on the shards (a layout applied by this version of `enrich distribute`). */
export async function hasShardStaging(db: Knex | Knex.Transaction): Promise<boolean> {
  return (await layoutOf(db)).staging;
}

/**
 * hasIdentifierTable's answer when it is already known for this client, without a promise (the
 * lookups' hot path: two awaits fewer); undefined until it is.
 */
export function knownIdentifierTable(db: Knex | Knex.Transaction): boolean | undefined {
  return settled.get(clientKey(db))?.identifiers;
}

/** Forgets what hasIdentifierTable learnt of this client (after `enrich distribute` in-process). */
export function forgetIdentifierTable(db: Knex): void {
  layouts.delete(clientKey(db));
  settled.delete(clientKey(db));
}

/**
 * The key a client's answer is remembered by: its configuration object, which a transaction's
 * client shares with the client it came from (knex gives each transaction a client object of its
 * own, so keyed by that, every write transaction asked again: two round trips per lake write).
 */
function clientKey(db: Knex | Knex.Transaction): object {
  const client = db.client as { config?: object };
  return client.config ?? client;
}

/**
 * The ids of the records whose identifier `column` is one of `values`, by the identifier table
 * (one shard per value), or undefined on a single PostgreSQL (the caller reads the lake directly).
 */
export async function idsByIdentifier(
  db: Knex | Knex.Transaction,
  kind: IdentifierKind,
  column: string,
  values: readonly string[],
): Promise<string[] | undefined> {
  if (!(await hasIdentifierTable(db))) return undefined;
  if (!values.length) return [];
  // `value = $1` (one value) is a router query, and the lookup path's first statement: prepared,
  // as the single-node lookups are (planned once per connection); `any(...)` goes to the shards
  // holding the values.
  const rows =
    values.length === 1
      ? await preparedQuery<{ subject_id: string }>(
          db as Knex,
          'lake_identifier_by_value',
          'select subject_id from lake_identifiers where value = $1 and kind = $2',
          [values[0]!, `${kind}:${column}`],
        )
      : (
          await db.raw<{ rows: { subject_id: string }[] }>('select subject_id from lake_identifiers where value = any(?::text[]) and kind = ?', [
            values as string[],
            `${kind}:${column}`,
          ])
        ).rows;
  return rows.map((r) => r.subject_id);
}

/** One row of the identifier table. */
export interface IdentifierRow {
  value: string;
  kind: string;
  subject_id: string;
}

/**
 * The identifier rows that the records `ids` give as the lake table holds them now (its columns are
 * the values lookups compare with), or undefined on a single PostgreSQL. Read by id: one shard each.
 */
export async function identifiersOf(
  trx: Knex | Knex.Transaction,
  kind: IdentifierKind,
  ids: readonly string[],
): Promise<IdentifierRow[] | undefined> {
  if (!(await hasIdentifierTable(trx))) return undefined;
  if (!ids.length) return [];
  const columns = IDENTIFIER_COLUMNS[kind];
  const { rows } = await trx.raw<{ rows: Record<string, string | null>[] }>(
    `select id::text as id, ${columns.map((c) => `${c}::text as ${c}`).join(', ')} from ${LAKE_TABLE[kind]} where id = any(?::uuid[])`,
    [ids as string[]],
  );
  return rows.flatMap((r) => columns.filter((c) => r[c] !== null).map((c) => ({ value: r[c]!, kind: `${kind}:${c}`, subject_id: r.id! })));
}

/**
 * Brings the identifier rows of `ids` (records just written) and `gone` (records removed) in line
 * with the lake table, in the writer's transaction. With `before` (identifiersOf the same ids, read
 * before the write), only what changed is deleted and inserted, each row on its value's shard: a
 * re-verified or edited record whose identifiers stayed the same costs no write here. Without it,
 * the rows are deleted by subject (every shard of the table) and inserted again. A record that takes
 * an identifier another record holds fails the unique index, exactly as the lake's own unique index
 * does on a single PostgreSQL.
 */
export async function replaceIdentifiers(
  trx: Knex.Transaction,
  kind: IdentifierKind,
  ids: readonly string[],
  gone: readonly string[] = [],
  before?: readonly IdentifierRow[],
): Promise<void> {
  if (!(await hasIdentifierTable(trx))) return;
  const kinds = IDENTIFIER_COLUMNS[kind].map((c) => `${kind}:${c}`);
  const bySubject = before === undefined ? [...ids, ...gone] : gone;
  if (bySubject.length) {
    await trx.raw('delete from lake_identifiers where subject_id = any(?::uuid[]) and kind = any(?::text[])', [bySubject as string[], kinds]);
  }
  const after = (await identifiersOf(trx, kind, ids))!;
  let fresh = after;
  if (before !== undefined) {
    const key = (r: IdentifierRow) => `${r.kind}\u0000${r.value}\u0000${r.subject_id}`;
    const now = new Set(after.map(key));
    const was = new Set(before.map(key));
    const stale = before.filter((r) => !now.has(key(r)));
    fresh = after.filter((r) => !was.has(key(r)));
    await deleteIdentifierRows(trx, stale);
  }
  // Inserted as rows: Citus routes each row of a multi-row VALUES to its shard, where an
  // INSERT … SELECT from persons (distributed by id) into this table (distributed by value)
  // repartitions through the coordinator (measured: 70 ms for a batch of 50 persons).
  // A row already there as it is (left by a change made behind the writer's back) is kept; the
  // unique identifiers' index still refuses one held by another record.
  for (let i = 0; i < fresh.length; i += IDENTIFIER_ROWS_PER_STATEMENT) {
    await trx('lake_identifiers').insert(fresh.slice(i, i + IDENTIFIER_ROWS_PER_STATEMENT)).onConflict(['value', 'kind', 'subject_id']).ignore();
  }
}

/** Three or four parameters a row, under PostgreSQL's 65,535 per statement. */
const IDENTIFIER_ROWS_PER_STATEMENT = 5_000;

/**
 * Deletes these identifier rows by value, as the writer does: `value = any(…)` lets Citus send the
 * delete to those values' shards only (the table is distributed by value); the row list says
 * exactly which rows go.
 */
async function deleteIdentifierRows(db: Knex | Knex.Transaction, rows: readonly IdentifierRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += IDENTIFIER_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + IDENTIFIER_ROWS_PER_STATEMENT);
    await db.raw(
      `delete from lake_identifiers where value = any(?::text[]) and (value, kind, subject_id) in (${chunk.map(() => '(?, ?, ?::uuid)').join(', ')})`,
      [chunk.map((r) => r.value), ...chunk.flatMap((r) => [r.value, r.kind, r.subject_id])],
    );
  }
}

/**
 * Removes the identifier rows of records being deleted (a withdrawal), in the caller's transaction,
 * before the records: their values read from the lake rows (by id, one shard each) and deleted by
 * value, on those values' shards only (issue 32, row 18: a delete by subject ran on every shard of
 * the table, the table being distributed by value).
 */
export async function dropIdentifiers(db: Knex | Knex.Transaction, kind: IdentifierKind, ids: readonly string[]): Promise<void> {
  if (!ids.length || !(await hasIdentifierTable(db))) return;
  await deleteIdentifierRows(db, (await identifiersOf(db, kind, ids))!);
}
