/** Short cross-instance locks: PostgreSQL advisory locks held by a transaction. */
import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import { integerLiteral } from '../literals';

/** A 64-bit lock key from any text (the first 8 bytes of its SHA-256), as a signed bigint string. */
export function lockKey(text: string): string {
  return keyOf(text).toString();
}

// crypto.hash, one call instead of a Hash object per text: a writer's batch locks ~200 identities,
// and this was a few per cent of a refresh worker's CPU (docs/benchmarks.md, the refresh section).
const keyOf = (text: string): bigint => hash('sha256', text, 'buffer').readBigInt64BE(0);

/**
 * Takes the advisory locks of `texts` (lockKey of each) until the transaction ends, in ascending key
 * order, so two transactions locking overlapping sets cannot deadlock on them, then runs `reads`
 * (SELECTs whose values are written in as literals: db/literals.ts). One round trip: all go as one
 * simple query, and each SELECT, a statement of its own, reads with a snapshot taken once the locks
 * are held, as if it had been sent after them. Returns the rows of each read. The lake writer locks
 * the identities it writes this way instead of a multi-row `SELECT ... FOR UPDATE`, which a
 * distributed planner (Citus) refuses across shards; advisory locks are taken where the statement
 * runs (the coordinator), so every writer through one coordinator serializes on them.
 */
export async function lockKeysThenRead(trx: Knex.Transaction, texts: readonly string[], reads: readonly string[]): Promise<unknown[][]> {
  const lock = texts.length ? [lockStatement(texts)] : [];
  const statements = [...lock, ...reads];
  const answer = (await trx.raw(statements.join(';\n'))) as unknown as { rows: unknown[] } | { rows: unknown[] }[];
  const results = Array.isArray(answer) ? answer : [answer];
  return results.slice(lock.length).map((r) => r.rows);
}

/**
 * The statement that takes the transaction-scoped advisory locks of `texts` in ascending key order,
 * for a simple query of several statements (lockKeysThenRead; realtimeUsage.ts, whose implicit
 * transaction is the query itself). unnest yields the array's elements in order.
 */
export function lockStatement(texts: readonly string[]): string {
  return `select count(pg_advisory_xact_lock(k)) from unnest(array[${sortedKeys(texts).map(integerLiteral).join(',')}]::bigint[]) k`;
}

// Sorted as numbers (bigint, compared as they are), then written out: the same keys in the same
// order as lockKey's, without parsing a BigInt from text at every comparison of the sort.
const sortedKeys = (texts: readonly string[]): string[] =>
  [...new Set(texts.map(keyOf))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);

/** PostgreSQL's lock_not_available: a lock wait ran past its lock_timeout. */
export const isLockTimeout = (err: unknown) => (err as { code?: string })?.code === '55P03';

/** PostgreSQL's deadlock_detected, also what Citus raises when it cancels a distributed deadlock. */
export const isDeadlock = (err: unknown) => (err as { code?: string })?.code === '40P01';

/**
 * Runs `fn` (a whole transaction) again when PostgreSQL chose it as a deadlock's victim, up to
 * `attempts` times, after a short random pause so the two sides do not meet again. On Citus the
 * parallel per-shard execution of two multi-shard statements can lock rows of different shards in
 * different orders (a distributed deadlock, which Citus detects and cancels); the transaction was
 * rolled back whole, so running it again is safe.
 */
export async function retryOnDeadlock<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(Math.random() * 80 * attempt)));
    }
  }
}
