/**
 * Leases of live fetches (migration 20261204000100_realtime_fetch_leases): one instance fetches a
 * subject at a time, and none holds a connection while it waits for the source.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { integerLiteral, literal } from '../literals';
import { TABLES, type TouchRow } from './lakeTables';

/** A subject is stored as a one-way hash: a lease left by a crash names no one (withdrawal has nothing to erase here). */
const digest = (subject: string) => createHash('sha256').update(subject).digest('hex');

/** The lake row whose `fetched_at` tells whether a fetch of the subject finished meanwhile. */
export type LeaseCopy = { kind: 'person'; username: string } | { kind: 'company'; username: string } | { kind: 'company'; companyId: string };

/**
 * Takes the lease of `subject` for `ttlMs`: inserts it, or takes over one that expired (its holder
 * died or overran); then reads the `fetched_at` of the subject's lake copy, if any: a copy fetched
 * after the caller started means another instance fetched it meanwhile. `taken` is true when the
 * lease is now `token`'s. The read is a statement of its own, after the lease's: the lease's INSERT
 * may have waited for, then followed, another instance's write-back that ended that instance's
 * lease, and a copy committed in between is not in the snapshot the INSERT's statement started
 * with (read there, this instance would fetch the subject a second time). One round trip all the
 * same: the two go as one simple query (values as literals, db/literals.ts), each statement with a
 * snapshot of its own. The lease's commit does not wait for its WAL flush (one fsync less on every
 * live fetch): a lease that a crash of the database loses only lets another instance fetch the
 * subject too; nobody is billed for a lease.
 */
export async function takeFetchLease(
  db: Knex,
  subject: string,
  token: string,
  ttlMs: number,
  copy: LeaseCopy,
): Promise<{ taken: boolean; fetched_at: Date | null }> {
  const [table, column, cast] =
    copy.kind === 'person' ? ['persons', 'username', 'text'] : 'companyId' in copy ? ['companies', 'company_id', 'bigint'] : ['companies', 'username', 'text'];
  const value = 'companyId' in copy ? copy.companyId : copy.username;
  const [lease, copyRow] = (await db.raw(
    `with later as (select set_config('synchronous_commit', 'off', true)),
     lease as (
       insert into realtime_fetch_leases (subject, token, expires_at)
       select ${literal(digest(subject))}, ${literal(token)}::uuid, now() + make_interval(secs => ${integerLiteral(Math.round(ttlMs))} / 1000.0) from later
       on conflict (subject) do update set token = excluded.token, expires_at = excluded.expires_at
         where realtime_fetch_leases.expires_at < now()
       returning 1)
     select exists (select 1 from lease) as taken;
     select fetched_at from ${table} where ${column} = ${literal(value)}::${cast}`,
  )) as unknown as [{ rows: { taken: boolean }[] }, { rows: { fetched_at: Date }[] }];
  return { taken: Boolean(lease.rows[0]?.taken), fetched_at: copyRow.rows[0]?.fetched_at ?? null };
}

/**
 * Ends the lease, if it is still `token`'s (in the write-back's transaction, or alone). With
 * `flushLater`, in a transaction, that transaction's commit does not wait for its WAL flush (the
 * realtime write-back of an unchanged copy: the answer's usage row, committed after it and
 * durably, flushes it too before the client gets its answer).
 */
export async function endFetchLease(db: Knex | Knex.Transaction, subject: string, token: string, opts: { flushLater?: boolean } = {}): Promise<void> {
  if (opts.flushLater && db.isTransaction) {
    await db.raw(
      `with later as (select set_config('synchronous_commit', 'off', true))
       delete from realtime_fetch_leases where subject = ? and token = ? and exists (select 1 from later)`,
      [digest(subject), token],
    );
    return;
  }
  await db('realtime_fetch_leases').where({ subject: digest(subject), token }).delete();
}

/**
 * The realtime write-back of a copy whose content did not change (the usual live fetch), as one
 * statement: moves the lake row's `fetched_at` (spliced into its stored text, or the text stored
 * whole, as lakeTables.ts touchRecords), re-verifies its refresh queue row,
 * and ends the lease, only if the row still has the `fetched_at` it was read with (`readAt`): any
 * other write of the record since (a refresh, an import, a realtime write-back elsewhere, a
 * withdrawal that deleted it) moved or removed it, and then nothing is written and false is
 * returned, for the caller to go through the lake writer, which locks and diffs. Its commit does not
 * wait for the WAL flush, as for the writer's unchanged write-back: the usage row of the answer,
 * committed durably after it, flushes it too. The lease table is the realtime half's; the lake
 * tables are lakeTables.ts's.
 */
export async function touchUnmovedCopy(
  db: Knex,
  kind: 'person' | 'company',
  row: TouchRow & { readAt: Date },
  lease: { subject: string; token: string },
): Promise<boolean> {
  const { table, queue, queueKey } = TABLES[kind];
  const { rows } = await db.raw<{ rows: { touched: number }[] }>(
    `with later as (select set_config('synchronous_commit', 'off', true)),
     touched as (
       update ${table} l set fetched_at = ?::timestamptz, record = coalesce(?::json, l.record), fetched_at_text = ?::text
       where l.id = ?::uuid and l.fetched_at = ?::timestamptz and exists (select 1 from later)
       returning l.id),
     queued as (
       update ${queue} r set checked_at = ?::timestamptz, lease_token = null, lease_until = null
       from touched where r.${queueKey} = touched.id),
     ended as (
       delete from realtime_fetch_leases where subject = ? and token = ?::uuid and exists (select 1 from touched))
     select count(*)::int as touched from touched`,
    [row.fetchedAt, row.record, row.fetchedAtText, row.id, row.readAt, row.fetchedAt, digest(lease.subject), lease.token],
  );
  return rows[0]!.touched > 0;
}
