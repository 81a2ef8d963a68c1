/**
 * Leases of live fetches (migration 20261204000100_realtime_fetch_leases): one instance fetches a
 * subject at a time, and none holds a connection while it waits for the source.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** A subject is stored as a one-way hash: a lease left by a crash names no one (withdrawal has nothing to erase here). */
const digest = (subject: string) => createHash('sha256').update(subject).digest('hex');

/** The lake row whose `fetched_at` tells whether a fetch of the subject finished meanwhile. */
export type LeaseCopy = { kind: 'person'; username: string } | { kind: 'company'; username: string } | { kind: 'company'; companyId: string };

/**
 * Takes the lease of `subject` for `ttlMs`: inserts it, or takes over one that expired (its holder
 * died or overran). With it, the `fetched_at` of the subject's lake copy, if any: a copy fetched
 * after the caller started means another instance fetched it meanwhile. `taken` is true when the
 * lease is now `token`'s.
 *
 * One round trip: the statements below go as one simple query, which PostgreSQL runs as one
 * implicit transaction, each statement with a snapshot of its own. So the copy is read by a
 * statement of its own, after the lease statement: that one's INSERT may have waited for, then
 * followed, another instance's write-back that ended that instance's lease, and a copy committed
 * in between is not in the snapshot the INSERT's statement started with (this instance would then
 * fetch the subject a second time); the next statement's snapshot has it. The values are written
 * in as literals: the digest and the token are hex and a UUID (checked), the TTL a number, and the
 * copy's key is passed as the hex of its UTF-8 bytes, so no value can carry SQL or a placeholder.
 * The lease's commit does not wait for its WAL flush: a lease a crash of the database loses only
 * lets another instance fetch the subject too, and the lease is not an answer anyone is billed for.
 */
export async function takeFetchLease(
  db: Knex,
  subject: string,
  token: string,
  ttlMs: number,
  copy: LeaseCopy,
): Promise<{ taken: boolean; fetched_at: Date | null }> {
  if (!UUID.test(token)) throw new Error('takeFetchLease: the token must be a UUID');
  const [table, column, cast] =
    copy.kind === 'person' ? ['persons', 'username', 'text'] : 'companyId' in copy ? ['companies', 'company_id', 'bigint'] : ['companies', 'username', 'text'];
  const value = 'companyId' in copy ? copy.companyId : copy.username;
  const literal = `convert_from(decode('${Buffer.from(value, 'utf8').toString('hex')}', 'hex'), 'UTF8')::${cast}`;
  const seconds = Number.isFinite(ttlMs) ? Math.max(0, ttlMs) / 1000 : 0;
  const results = await db.raw<{ rows: { taken?: boolean; fetched_at?: Date }[] }[]>(
    `set local synchronous_commit = off;
     with lease as (
       insert into realtime_fetch_leases (subject, token, expires_at) values ('${digest(subject)}', '${token}', now() + make_interval(secs => ${seconds}))
       on conflict (subject) do update set token = excluded.token, expires_at = excluded.expires_at
         where realtime_fetch_leases.expires_at < now()
       returning 1)
     select exists (select 1 from lease) as taken;
     select fetched_at from ${table} where ${column} = ${literal}`,
  );
  const taken = Boolean(results[1]?.rows[0]?.taken);
  return { taken, fetched_at: results[2]?.rows[0]?.fetched_at ?? null };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
