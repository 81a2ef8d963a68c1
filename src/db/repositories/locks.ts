/** Short cross-instance locks: PostgreSQL advisory locks held by a transaction. */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** A 64-bit lock key from any text (the first 8 bytes of its SHA-256), as a signed bigint string. */
export function lockKey(text: string): string {
  return createHash('sha256').update(text).digest().readBigInt64BE(0).toString();
}

/**
 * Runs `fn` in a transaction that first takes the advisory lock `key`: another instance taking the
 * same key waits until this transaction ends, at most `waitMs` (then PostgreSQL raises 55P03,
 * lock_not_available). The lock is released with the transaction, so a crashed instance never
 * leaves it behind.
 */
export async function withTransactionLock<T>(
  db: Knex,
  key: string,
  waitMs: number,
  fn: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return db.transaction(async (trx) => {
    // One round trip: the bound (set_config(..., true) is SET LOCAL: it ends with the transaction,
    // and also bounds the row locks `fn` waits for), then the lock.
    await trx.raw("select set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?::bigint)", [
      `${Math.max(1, Math.round(waitMs))}ms`,
      lockKey(key),
    ]);
    return fn(trx);
  });
}

/** PostgreSQL's lock_not_available: a lock wait ran past its lock_timeout. */
export const isLockTimeout = (err: unknown) => (err as { code?: string })?.code === '55P03';
