/**
 * Idempotency-Key for the realtime operations (IETF draft "The Idempotency-Key HTTP Header
 * Field"): a key is bound to one workspace, one operation and one set of parameters for 24 hours.
 * Only metered answers are stored (in the statement that meters them); after an error the key is
 * free again. A repeat with other parameters is 422, a repeat while the first call runs is 409. A
 * stored answer whose subject was later withdrawn is erased (lake/suppression.ts) and a repeat
 * answers what a new call answers: 451.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { claimKey, findKey, releaseKey } from '../../db/repositories/idempotencyKeys';
import { AppError } from '../errors';
import { dataSubjectBlocked } from '../lake/suppression';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** A pending key older than this belongs to a call whose server died; a new call may take it. */
const STALE_PENDING_SECONDS = 120;

export interface IdempotencyScope {
  workspaceId: string;
  key: string;
  requestHash: string;
}

/** The operation and its parameters, in a stable order. */
export function requestHash(operationId: string, query: Record<string, unknown>): string {
  const canonical = Object.keys(query)
    .sort()
    .map((k) => [k, query[k]]);
  return createHash('sha256').update(JSON.stringify([operationId, canonical])).digest('hex');
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: string };

export async function claim(db: Knex, scope: IdempotencyScope): Promise<Claim> {
  if (await claimKey(db, { ...scope, ttlSeconds: IDEMPOTENCY_TTL_SECONDS, staleSeconds: STALE_PENDING_SECONDS })) {
    return { kind: 'claimed' };
  }
  const row = await findKey(db, scope.workspaceId, scope.key);
  // Gone between the two statements (released after an error): take it again.
  if (!row) return claim(db, scope);
  if (row.request_hash !== scope.requestHash) {
    throw new AppError(
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used with another operation or other parameters in the last 24 hours. Use a new key.',
    );
  }
  if (row.state === 'withdrawn') throw dataSubjectBlocked();
  if (row.state === 'pending' || row.response === null) {
    throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS', 'A call with this Idempotency-Key is still in progress. Retry shortly.');
  }
  return { kind: 'replay', response: row.response };
}

export const release = (db: Knex, scope: IdempotencyScope) => releaseKey(db, scope.workspaceId, scope.key).catch(() => undefined);
