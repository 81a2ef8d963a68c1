/**
 * Leases of live fetches (migration 20261204000100_realtime_fetch_leases): one instance fetches a
 * subject at a time, and none holds a connection while it waits for the source. Each function is
 * one statement.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** A subject is stored as a one-way hash: a lease left by a crash names no one (withdrawal has nothing to erase here). */
const digest = (subject: string) => createHash('sha256').update(subject).digest('hex');

/**
 * Takes the lease of `subject` for `ttlMs`: inserts it, or takes over one that expired (its holder
 * died or overran). True when the lease is now `token`'s.
 */
export async function takeFetchLease(db: Knex, subject: string, token: string, ttlMs: number): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into realtime_fetch_leases (subject, token, expires_at) values (?, ?, now() + make_interval(secs => ?))
     on conflict (subject) do update set token = excluded.token, expires_at = excluded.expires_at
       where realtime_fetch_leases.expires_at < now()
     returning 1`,
    [digest(subject), token, ttlMs / 1000],
  );
  return rows.length > 0;
}

/** Ends the lease, if it is still `token`'s (in the write-back's transaction, or alone). */
export async function endFetchLease(db: Knex | Knex.Transaction, subject: string, token: string): Promise<void> {
  await db('realtime_fetch_leases').where({ subject: digest(subject), token }).delete();
}
