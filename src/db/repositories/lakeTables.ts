/**
 * What the persons and companies tables have in common, written once: each has its refresh queue
 * table keyed by the record's id, a freshness (`fetched_at`) by a column of the table, deletion by
 * id, and the "touch" of a record whose content is unchanged. personRecords.ts and
 * companyRecords.ts name these for their kind and keep what differs (their columns, identifier
 * routing, upserts and locks).
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';
import { servedText } from '../../model/recordText';

/** Each kind's lake table, its refresh queue table and the queue's key column. */
export const TABLES: Record<LakeKind, { table: string; queue: string; queueKey: string }> = {
  person: { table: 'persons', queue: 'person_refresh', queueKey: 'person_id' },
  company: { table: 'companies', queue: 'company_refresh', queueKey: 'company_id' },
};

export async function findFreshness(
  db: Knex,
  kind: LakeKind,
  column: string,
  value: string,
): Promise<{ id: string; fetched_at: Date } | undefined> {
  return db(TABLES[kind].table).where(column, value).first('id', 'fetched_at');
}

export async function deleteRecord(db: Knex, kind: LakeKind, id: string): Promise<boolean> {
  return (await db(TABLES[kind].table).where({ id }).delete()) > 0;
}

/**
 * The columns a read of a record's text selects: the stored text and the `fetched_at` of its last
 * re-verification, which `served` splices in (model/recordText.ts).
 */
export const RECORD_COLUMNS = 'record::text as record, fetched_at_text';

/** A row read with RECORD_COLUMNS, its `record` the served text. */
export function served<T extends { record: string; fetched_at_text: string | null }>(row: T): Omit<T, 'fetched_at_text'> {
  const { fetched_at_text: fetchedAtText, ...rest } = row;
  return { ...rest, record: servedText(row.record, fetchedAtText) };
}

/** A re-verified record: its new fetched_at, and how its text moves (domain/lake/write/splice.ts). */
export interface TouchRow {
  id: string;
  fetchedAt: string;
  /** The whole new text to store, or null when the stored text stands. */
  record: string | null;
  /** The new fetched_at value spliced into the stored text at read time, or null. */
  fetchedAtText: string | null;
}

/**
 * Records whose content is unchanged: only fetched_at moves, and the refresh queue row with it.
 * Index tables and search columns stay. Usually the stored text stands and the new value goes in
 * `fetched_at_text` (two narrow columns: a HOT update that writes no TOAST value); a row with a
 * whole new `record` (a text that cannot be spliced, splice.ts) stores it and clears
 * `fetched_at_text`; a row with neither is stored exactly as it comes (same text, so the same
 * fetched_at): its lake row is left as it is (rewriting it would change nothing but cost a new row
 * version), and only its refresh queue row is re-verified, when not already.
 */
export async function touchRecords(trx: Knex.Transaction, kind: LakeKind, rows: readonly TouchRow[]): Promise<void> {
  if (!rows.length) return;
  const { table, queue, queueKey } = TABLES[kind];
  await trx.raw(
    `with input as (select * from unnest(?::uuid[], ?::timestamptz[], ?::text[], ?::text[]) as t(id, fetched_at, doc, fetched_text)),
     -- record = l.record keeps the stored value as it is (its TOAST pointer): nothing is rewritten.
     touched as (update ${table} l set fetched_at = input.fetched_at, record = coalesce(input.doc::json, l.record),
                   fetched_at_text = input.fetched_text
                 from input where l.id = input.id and (input.doc is not null or input.fetched_text is not null))
     update ${queue} r set checked_at = input.fetched_at, lease_token = null, lease_until = null
     from input where r.${queueKey} = input.id
       and (r.checked_at is distinct from input.fetched_at or r.lease_token is not null or r.lease_until is not null)`,
    [rows.map((r) => r.id), rows.map((r) => r.fetchedAt), rows.map((r) => r.record) as string[], rows.map((r) => r.fetchedAtText) as string[]],
  );
}
