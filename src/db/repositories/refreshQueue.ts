/**
 * The refresh queue (person_refresh, company_refresh; migration 20261122001000_live): one row per
 * lake record, claimed by workers with an `UPDATE ... RETURNING` that writes a lease (claimDue; on one
 * PostgreSQL its candidates are locked with `FOR UPDATE SKIP LOCKED`, so claims run side by side).
 * Plain values in, plain rows out.
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';
import { hasIdentifierTable } from './lakeIdentifiers';
import { lockKey, retryOnDeadlock } from './locks';

const TABLES = {
  person: { queue: 'person_refresh', key: 'person_id', lake: 'persons' },
  company: { queue: 'company_refresh', key: 'company_id', lake: 'companies' },
} as const;

export interface ClaimedRow {
  id: string;
  username: string;
  /** Companies only: the numeric company ID as text. */
  company_id: string | null;
}

export interface ClaimOptions {
  /** Lease token written on the claimed rows; the write that ends the lease must present it. */
  token: string;
  limit: number;
  leaseSeconds: number;
  /** Rows checked before this are due. */
  dueBefore: Date;
  /** Watched rows (watchers > 0) checked before this are due, ahead of the others. */
  watchedDueBefore: Date;
}

/**
 * Claims up to `limit` due rows whose lease is free or expired: first the watched lane, then the
 * rest, each oldest checked_at first. A row another worker has claimed carries a live lease, so no
 * two workers hold one row.
 */
export async function claimDue(db: Knex, kind: LakeKind, opts: ClaimOptions): Promise<ClaimedRow[]> {
  const t = TABLES[kind];
  if (opts.limit <= 0) return [];
  const free = '(lease_until is null or lease_until < now())';
  // Two ways to claim, by layout (the same rows either way: the watched lane first, then the rest,
  // each oldest checked_at first, a watched row due in both lanes counted once).
  // The commit does not wait for its WAL flush (synchronous_commit off, this transaction only): a
  // lease that a crash of the database loses only makes its rows due again, and the write that
  // would end it is fenced by the token (lockLeased), so it then writes nothing. One fsync less
  // per batch.
  // One round trip: the statements go as one simple query, which PostgreSQL runs as one implicit
  // transaction, each statement with a snapshot of its own. The values are ours (a UUID checked
  // here, timestamps, integers) and written in as literals.
  if (!UUID.test(opts.token)) throw new Error('claimDue: the lease token must be a UUID');
  const int = (n: number) => String(Math.trunc(Number(n)) || 0);
  const at = (d: Date) => `'${d.toISOString()}'::timestamptz`;
  const limit = int(opts.limit);
  const watched = `checked_at < ${at(opts.watchedDueBefore)} and watchers > 0 and ${free} order by checked_at limit ${limit}`;
  const rest = `checked_at < ${at(opts.dueBefore)} and ${free} order by checked_at limit ${limit}`;
  const pickAndLease = `
     picked as (
       select id from (select distinct on (id) id, lane, checked_at from candidates order by id, lane) c
       order by lane, checked_at limit ${limit}),
     claimed as (
       update ${t.queue} q set lease_token = '${opts.token}', lease_until = now() + make_interval(secs => ${int(opts.leaseSeconds)})
       where q.${t.key} = any(array(select id from picked)) and (q.lease_until is null or q.lease_until < now())
       returning q.${t.key} as id)
     select l.id, l.username, ${kind === 'company' ? 'l.company_id::text' : 'null'} as company_id
     from ${t.lake} l where l.id = any(array(select id from claimed))`;
  const sql = (await hasIdentifierTable(db))
    ? // The distributed layout (Citus): an `UPDATE ... RETURNING` claim, not `FOR UPDATE SKIP
      // LOCKED` (which the distributed planner refuses across shards): the candidates are picked,
      // then leased by one UPDATE whose own condition re-checks the lease. One claim of a kind at a
      // time (an advisory lock, held to the claim's commit, taken by a statement of its own so the
      // UPDATE's snapshot follows the previous claim's commit): the next one then sees its leases
      // and picks other rows. Without it two claims of the same rows would run on the shards in
      // parallel and lock them in different orders: a distributed deadlock (seen in
      // test/citus/distributed.test.ts before this lock).
      `select set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(${lockKey(`claim:${kind}`)}::bigint);
    with candidates as (
       (select ${t.key} as id, 0 as lane, checked_at from ${t.queue} where ${watched})
       union all
       (select ${t.key}, 1, checked_at from ${t.queue} where ${rest})),${pickAndLease}`
    : // One PostgreSQL: each lane's candidates are row-locked as they are picked, skipping rows
      // another claim holds (`FOR UPDATE SKIP LOCKED`; the LIMIT counts only rows locked here), so
      // two workers claim at the same time on disjoint rows without waiting for each other (the
      // advisory lock of the distributed path made the second claim wait for the first's commit:
      // 43 -> 83-86 ms per claim with two workers, docs/benchmarks.md). A row another claim leased
      // and committed after this statement's snapshot is re-read when locked (READ COMMITTED) and
      // fails the lease condition, so it is left out: no row is ever held by two workers. The
      // UPDATE then leases the picked rows, already locked by this transaction; a candidate of a
      // lane that is not picked stays locked only until this claim's commit.
      `select set_config('synchronous_commit', 'off', true);
    with watched as materialized (select ${t.key} as id, checked_at from ${t.queue} where ${watched} for update skip locked),
     rest as materialized (select ${t.key} as id, checked_at from ${t.queue} where ${rest} for update skip locked),
     candidates as (select id, 0 as lane, checked_at from watched union all select id, 1, checked_at from rest),${pickAndLease}`;
  return retryOnDeadlock(async () => {
    const results = await db.raw<{ rows: ClaimedRow[] }[]>(sql);
    return results[results.length - 1]!.rows;
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ends the lease on rows still held with `token`, leaving them due (the source could not answer). */
export async function releaseLeases(db: Knex, kind: LakeKind, token: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const t = TABLES[kind];
  return db(t.queue)
    .whereIn(t.key, ids as string[])
    .andWhere('lease_token', token)
    .update({ lease_token: null, lease_until: null });
}

/** Rows the source does not know (any more): checked now, so they go to the back of the queue. */
export async function markChecked(db: Knex, kind: LakeKind, token: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const t = TABLES[kind];
  return db(t.queue)
    .whereIn(t.key, ids as string[])
    .andWhere('lease_token', token)
    .update({ checked_at: db.fn.now(), lease_token: null, lease_until: null });
}

/**
 * Rows whose record the lake refused (the database cannot store the live source's copy): checked
 * now, so they go to the back of the queue and are asked again on their own schedule, and marked
 * with the reason (migration 20261208000200_refresh_refusals; the mark stands while
 * `refused_at >= checked_at`).
 */
export async function markRefused(db: Knex, kind: LakeKind, token: string, refusals: readonly { id: string; reason: string }[]): Promise<number> {
  if (!refusals.length) return 0;
  const t = TABLES[kind];
  // One statement per distinct reason (refusals are rare, their reasons few): plain values and
  // `id = any(...)`, which a distributed planner routes like markChecked. (A reason picked from an
  // array by array_position() in one multi-shard UPDATE crashed the Citus 13.2 server of test/citus (connection lost, recovery mode).)
  const byReason = new Map<string, string[]>();
  for (const r of refusals) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.id]);
  let marked = 0;
  for (const [reason, ids] of byReason) {
    marked += await db(t.queue)
      .whereIn(t.key, ids)
      .andWhere('lease_token', token)
      .update({ checked_at: db.fn.now(), refused_at: db.fn.now(), refused_reason: reason, lease_token: null, lease_until: null });
  }
  return marked;
}

/** The refusal standing on a record's queue row (its copy was refused since its last write), if any. */
export async function findRefusal(db: Knex, kind: LakeKind, id: string): Promise<{ refused_at: Date; reason: string } | undefined> {
  const t = TABLES[kind];
  const row = await db(t.queue)
    .where(t.key, id)
    .whereRaw('refused_at >= checked_at')
    .first<{ refused_at: Date; refused_reason: string } | undefined>('refused_at', 'refused_reason');
  return row ? { refused_at: row.refused_at, reason: row.refused_reason } : undefined;
}

/**
 * Of `ids`, those whose queue row still carries `token`, locked until the transaction ends (the
 * fence of a refresh write: a worker whose lease expired and was taken over writes nothing).
 */
export async function lockLeased(trx: Knex.Transaction, kind: LakeKind, token: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const t = TABLES[kind];
  // On one server, `SELECT ... FOR UPDATE`: it locks the rows it matches without writing a new
  // version of each (the no-op UPDATE below wrote 100 row versions and their WAL per batch, only to
  // be replaced by the batch's own write of the same rows a moment later). A row whose lease another
  // worker took over meanwhile is waited for and then checked again, as the UPDATE's would be (READ
  // COMMITTED). On the distributed layout a multi-row `FOR UPDATE` is refused across shards by the
  // planner, so there the no-op UPDATE locks them. Either way the lake rows' advisory locks are
  // already held, so no two writers reach this point for one record at the same time.
  const statement = (await hasIdentifierTable(trx))
    ? `update ${t.queue} set lease_token = lease_token where ${t.key} = any(?::uuid[]) and lease_token = ? returning ${t.key} as id`
    : `select ${t.key} as id from ${t.queue} where ${t.key} = any(?::uuid[]) and lease_token = ? for update`;
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(statement, [ids as string[], token]);
  return new Set(rows.map((r) => r.id));
}

export interface QueueStats {
  /** Rows due before `dueBefore`. */
  due: number;
  /** Rows under a live lease. */
  leased: number;
  /**
   * The oldest check in the queue: the oldest `fetched_at` of the lake, except for records the
   * source said it does not know (markChecked), whose check time moved without a new copy. Read
   * from the queue's own index (person_refresh_due), so no index on the lake's `fetched_at` is
   * needed and a re-verification stays a HOT update (migration 20261206000100).
   */
  oldestFetchedAt: Date | null;
}

export async function queueStats(db: Knex, kind: LakeKind, dueBefore: Date): Promise<QueueStats> {
  const t = TABLES[kind];
  const { rows } = await db.raw<{ rows: { due: number; leased: number; oldest: Date | null }[] }>(
    `select (select count(*) from ${t.queue} where checked_at < ?) as due,
            (select count(*) from ${t.queue} where lease_until > now()) as leased,
            (select min(checked_at) from ${t.queue}) as oldest`,
    [dueBefore],
  );
  const row = rows[0];
  return { due: Number(row?.due ?? 0), leased: Number(row?.leased ?? 0), oldestFetchedAt: row?.oldest ?? null };
}

/**
 * Monitors (issue 13) count the watchers of a subject: `delta` +1 when a monitor is created, -1 when
 * one is deleted. Returns the new count, or undefined when the subject is not in the lake.
 */
export async function adjustWatchers(db: Knex, kind: LakeKind, id: string, delta: number): Promise<number | undefined> {
  const t = TABLES[kind];
  const rows = await db(t.queue)
    .where(t.key, id)
    .update({ watchers: db.raw('greatest(watchers + ?, 0)', [delta]) })
    .returning('watchers');
  return rows[0]?.watchers;
}

/** The database clock, which leases and due times are measured with. */
export async function databaseNow(db: Knex): Promise<Date> {
  const { rows } = await db.raw<{ rows: { now: Date }[] }>('select now() as now');
  return rows[0]!.now;
}

/**
 * Monitors (issue 13): sets the watcher count of the lake record with this username to `count`
 * (the number of monitors on it). A subject not in the lake has no queue row: nothing to set.
 */
export async function setWatchersByUsername(db: Knex, kind: LakeKind, username: string, count: number): Promise<number> {
  const t = TABLES[kind];
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `update ${t.queue} q set watchers = ? from ${t.lake} l where l.id = q.${t.key} and l.username = ?`,
    [count, username],
  );
  return rowCount ?? 0;
}
