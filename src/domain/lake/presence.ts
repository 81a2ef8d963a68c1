/**
 * The two answers to a read by identifier, written once for every operation that takes one:
 * the row when the lookup found it; otherwise 451 when the identifier belongs to a withdrawn record
 * (asked only on a miss, so a hit costs one query), else 404 (or, for the checks, `exists: false`).
 */
import type { Knex } from 'knex';
import { notFound } from '../errors';
import type { CompanyKey, PersonKey } from '../../model/identifiers';
import type { LakeKind } from '../../model/records';
import { assertNotWithdrawn } from './suppression';

export async function foundOr451Or404<T>(db: Knex, kind: LakeKind, key: PersonKey | CompanyKey, row: T | undefined): Promise<T> {
  if (row !== undefined) return row;
  await assertNotWithdrawn(db, kind, key);
  throw notFound(`No ${kind} with this ${key.by === 'company_id' ? 'company_id' : 'identifier'} is indexed in the data lake.`);
}

export interface RecordCheck {
  exists: boolean;
  id: string | null;
  fetched_at: string | null;
}

export async function checkedOr451(
  db: Knex,
  kind: LakeKind,
  key: PersonKey | CompanyKey,
  row: { id: string; fetched_at: Date } | undefined,
): Promise<RecordCheck> {
  if (row) return { exists: true, id: row.id, fetched_at: row.fetched_at.toISOString() };
  await assertNotWithdrawn(db, kind, key);
  return { exists: false, id: null, fetched_at: null };
}
