/** Tombstones of withdrawn records: identifier digests only. */
import type { Knex } from 'knex';
import { arrayLiteral } from '../literals';

export async function suppressedDigests(db: Knex, digests: readonly string[]): Promise<Set<string>> {
  if (!digests.length) return new Set();
  const { rows } = await db.raw<{ rows: { digest: string }[] }>(
    'select digest from suppressions where digest = any(?::text[])',
    [digests as string[]],
  );
  return new Set(rows.map((r) => r.digest));
}

/** suppressedDigests as one SELECT with its values written in (for locks.ts lockKeysThenRead); rows of `digest`. */
export const suppressedDigestsRead = (digests: readonly string[]) => `select digest from suppressions where digest = any(${arrayLiteral(digests, 'text')})`;

/** Whether any record has been withdrawn at all (an initial load skips the digests when none has). */
export async function anySuppressions(db: Knex): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { any: boolean }[] }>('select exists (select 1 from suppressions) as any');
  return rows[0].any;
}

/** Whether any of the digests (one identifier in its current and legacy forms) is a tombstone. */
export async function isSuppressed(db: Knex, digests: readonly string[]): Promise<boolean> {
  return Boolean(await db('suppressions').whereIn('digest', digests as string[]).first('digest'));
}

export async function insertSuppressions(db: Knex, kind: 'person' | 'company', digests: readonly string[]): Promise<number> {
  if (!digests.length) return 0;
  const inserted = await db('suppressions')
    .insert(digests.map((digest) => ({ digest, kind })))
    .onConflict('digest')
    .ignore()
    .returning('digest');
  return inserted.length;
}
