/** Stored answers of realtime calls made with an Idempotency-Key (migration 20261122001000_live). */
import type { Knex } from 'knex';
import { lockKeysThenRead } from './locks';

export interface IdempotencyRow {
  request_hash: string;
  /** `withdrawn`: the answer was erased because its subject was withdrawn (privacy request). */
  state: 'pending' | 'done' | 'withdrawn';
  response: string | null;
}

/**
 * Takes the key for a new call: inserts it as pending, or takes over a row older than `ttlSeconds`
 * or a pending row abandoned for `staleSeconds` (its server died). True when the key is now ours.
 */
export async function claimKey(
  db: Knex,
  row: { workspaceId: string; key: string; requestHash: string; ttlSeconds: number; staleSeconds: number },
): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into idempotency_keys (workspace_id, key, request_hash, state) values (?, ?, ?, 'pending')
     on conflict (workspace_id, key) do update
       set request_hash = excluded.request_hash, state = 'pending', response = null, created_at = now()
       where idempotency_keys.created_at < now() - make_interval(secs => ?)
          or (idempotency_keys.state = 'pending' and idempotency_keys.created_at < now() - make_interval(secs => ?))
     returning 1`,
    [row.workspaceId, row.key, row.requestHash, row.ttlSeconds, row.staleSeconds],
  );
  return rows.length > 0;
}

export async function findKey(db: Knex, workspaceId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db('idempotency_keys').where({ workspace_id: workspaceId, key }).first('request_hash', 'state', 'response');
}

/** Frees a key whose call ended without a metered answer. */
export async function releaseKey(db: Knex, workspaceId: string, key: string): Promise<void> {
  await db('idempotency_keys').where({ workspace_id: workspaceId, key, state: 'pending' }).delete();
}

/**
 * The advisory locks that make a withdrawal and the storing of an answer exclusive (issue 32, row
 * 16): one per identifier digest of the subject (lake/suppression.ts). Both sides take them before
 * they read: a withdrawal, before it erases the stored answers and writes its tombstones
 * (withdrawAnswersAbout); a realtime call, before it checks the tombstones and stores its answer
 * (realtimeUsage.ts insertUsageWithAnswer). Whichever comes second sees the other's commit: an
 * answer stored first is erased by the withdrawal, a withdrawal committed first keeps the answer
 * from being stored. Taken in sorted order (locks.ts), so overlapping sets cannot deadlock.
 */
export const answerLockTexts = (digests: readonly string[]): string[] => digests.map((d) => `answer:${d}`);

/**
 * Withdrawal of a subject (lake/suppression.ts, in its transaction): every stored answer about it
 * is erased; the keys stay bound to their parameters, as `withdrawn`. `digests` are the subject's
 * identifier digests (the tombstones the withdrawal writes), locked first (answerLockTexts), also
 * when the lake holds no record (`subjectId` null). Returns the number erased.
 */
export async function withdrawAnswersAbout(trx: Knex.Transaction, subjectId: string | null, digests: readonly string[]): Promise<number> {
  await lockKeysThenRead(trx, answerLockTexts(digests), []);
  if (subjectId === null) return 0;
  return trx('idempotency_keys').where('subject_id', subjectId).update({ state: 'withdrawn', response: null, subject_id: null });
}

export async function deleteExpiredKeys(db: Knex, ttlSeconds: number): Promise<number> {
  return db('idempotency_keys').where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [ttlSeconds])).delete();
}
