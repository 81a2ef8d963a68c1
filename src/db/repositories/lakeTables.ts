/**
 * What the persons and companies tables have in common, written once: each has its refresh queue
 * table keyed by the record's id, a freshness (`fetched_at`) by a column of the table, deletion by
 * id, and the "touch" of a record whose content is unchanged. personRecords.ts and
 * companyRecords.ts name these for their kind and keep what differs (their columns, identifier
 * routing, upserts and locks).
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';

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
 * Records whose content is unchanged: only fetched_at moves (the column and the stored text, which
 * carries it), and the refresh queue row with it. Index tables and search columns stay.
 * A row whose `record` is null is stored exactly as it comes (same text, so the same fetched_at):
 * its lake row is left as it is (rewriting it would change nothing but cost a new row version
 * and an entry in every index), and only its refresh queue row is re-verified, when not already.
 */
export async function touchRecords(
  trx: Knex.Transaction,
  kind: LakeKind,
  rows: readonly { id: string; fetchedAt: string; record: string | null }[],
): Promise<void> {
  if (!rows.length) return;
  const { table, queue, queueKey } = TABLES[kind];
  await trx.raw(
    `with input as (select * from unnest(?::uuid[], ?::timestamptz[], ?::text[]) as t(id, fetched_at, doc)),
     touched as (update ${table} l set fetched_at = input.fetched_at, record = input.doc::json
                 from input where l.id = input.id and input.doc is not null)
     update ${queue} r set checked_at = input.fetched_at, lease_token = null, lease_until = null
     from input where r.${queueKey} = input.id
       and (r.checked_at is distinct from input.fetched_at or r.lease_token is not null or r.lease_until is not null)`,
    [rows.map((r) => r.id), rows.map((r) => r.fetchedAt), rows.map((r) => r.record) as string[]],
  );
}
