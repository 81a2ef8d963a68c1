/**
 * Leases of live fetches (migration 20261204000100_realtime_fetch_leases): one instance fetches a
 * subject at a time, and none holds a connection while it waits for the source. Each function is
 * one statement.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** A subject is stored as a one-way hash: a lease left by a crash names no one (withdrawal has nothing to erase here). */
const digest = (subject: string) => createHash('sha256').update(subject).digest('hex');

/** The lake row whose `fetched_at` tells whether a fetch of the subject finished meanwhile. */
export type LeaseCopy = { kind: 'person'; username: string } | { kind: 'company'; username: string } | { kind: 'company'; companyId: string };

/**
 * Takes the lease of `subject` for `ttlMs`: inserts it, or takes over one that expired (its holder
 * died or overran). In the same statement (one round trip on the realtime path), the `fetched_at`
 * of the subject's lake copy, if any: a copy fetched after the caller started means another
 * instance fetched it meanwhile. `taken` is true when the lease is now `token`'s.
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
  const { rows } = await db.raw<{ rows: { taken: boolean; fetched_at: Date | null }[] }>(
    `with lease as (
       insert into realtime_fetch_leases (subject, token, expires_at) values (?, ?, now() + make_interval(secs => ?))
       on conflict (subject) do update set token = excluded.token, expires_at = excluded.expires_at
         where realtime_fetch_leases.expires_at < now()
       returning 1)
     select exists (select 1 from lease) as taken, (select fetched_at from ${table} where ${column} = ?::${cast}) as fetched_at`,
    [digest(subject), token, ttlMs / 1000, value],
  );
  return rows[0]!;
}

/** Ends the lease, if it is still `token`'s (in the write-back's transaction, or alone). */
export async function endFetchLease(db: Knex | Knex.Transaction, subject: string, token: string): Promise<void> {
  await db('realtime_fetch_leases').where({ subject: digest(subject), token }).delete();
}
