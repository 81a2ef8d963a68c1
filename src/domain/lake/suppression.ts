/**
 * Privacy withdrawal (GDPR / CCPA). The record is deleted from the lake; what remains is a tombstone
 * of one-way hashes of each of its identifiers, enough to answer 451 for any of them and to refuse
 * the record when it is imported again, and nothing that reveals who it was.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { deleteCompany, findCompanyRecord, type CompanyRecord } from '../../db/repositories/companyRecords';
import { deletePerson, findPersonRecord, type PersonRecord } from '../../db/repositories/personRecords';
import { insertSuppressions, isSuppressed } from '../../db/repositories/suppressions';
import { AppError } from '../errors';
import { forgetChangesOf } from '../refresh/changes';
import { canonicalCompanyId, slugFromNetworkUrl, type CompanyKey, type PersonKey } from './identifiers';

export type LakeKind = 'person' | 'company';

/** Values are already normalized by identifiers.ts (slugs and UUIDs lower-case). */
export function identifierDigest(kind: LakeKind, key: PersonKey | CompanyKey): string {
  return createHash('sha256').update(`${kind}:${key.by}:${key.value}`).digest('hex');
}

/** Every identifier a record can be reached by: id, username, the slug of network_url, and the network IDs. */
export function personDigests(record: PersonRecord): string[] {
  const keys: PersonKey[] = [
    { by: 'id', value: record.id.toLowerCase() },
    { by: 'username', value: record.username.toLowerCase() },
  ];
  const slug = slugFromNetworkUrl(record.network_url, 'in');
  if (slug) keys.push({ by: 'username', value: slug });
  if (record.network_id) keys.push({ by: 'network_id', value: record.network_id });
  if (record.network_urn) keys.push({ by: 'network_urn', value: record.network_urn });
  return unique(keys.map((k) => identifierDigest('person', k)));
}

export function companyDigests(record: CompanyRecord): string[] {
  const keys: CompanyKey[] = [
    { by: 'id', value: record.id.toLowerCase() },
    { by: 'username', value: record.username.toLowerCase() },
    { by: 'company_id', value: canonicalCompanyId(record.company_id) },
  ];
  const slug = slugFromNetworkUrl(record.network_url, 'company');
  if (slug) keys.push({ by: 'username', value: slug });
  return unique(keys.map((k) => identifierDigest('company', k)));
}

const unique = (values: string[]) => [...new Set(values)];

export const dataSubjectBlocked = () =>
  new AppError(
    'DATA_SUBJECT_BLOCKED',
    'This record was withdrawn under a privacy request (GDPR / CCPA) and is no longer served.',
  );

/** Throws 451 when the identifier belongs to a withdrawn record. Called after a lookup found nothing. */
export async function assertNotWithdrawn(db: Knex, kind: LakeKind, key: PersonKey | CompanyKey): Promise<void> {
  if (await isSuppressed(db, identifierDigest(kind, key))) throw dataSubjectBlocked();
}

export interface SuppressionOutcome {
  kind: LakeKind;
  /** Whether a record was in the lake (and was deleted). The identifier is blocked either way. */
  found: boolean;
  deleted_id: string | null;
  identifiers_blocked: number;
}

/**
 * Withdraws a record. When the record is not (yet) in the lake, the named identifier alone is
 * blocked, so the record is refused if it arrives later. Its change-log entries keep no personal
 * data (no diff, no subject id); its refresh queue row goes with the record.
 */
export async function suppress(db: Knex, kind: 'person', key: PersonKey): Promise<SuppressionOutcome>;
export async function suppress(db: Knex, kind: 'company', key: CompanyKey): Promise<SuppressionOutcome>;
export async function suppress(db: Knex, kind: LakeKind, key: PersonKey | CompanyKey): Promise<SuppressionOutcome> {
  return db.transaction(async (trx) => {
    const digests = [identifierDigest(kind, key)];
    let deletedId: string | null = null;
    if (kind === 'person') {
      const record = await findPersonRecord(trx, key.by as PersonKey['by'], key.value);
      if (record) {
        digests.push(...personDigests(record));
        await deletePerson(trx, record.id);
        await forgetChangesOf(trx, record.id);
        deletedId = record.id;
      }
    } else {
      const record = await findCompanyRecord(trx, key.by as CompanyKey['by'], key.value);
      if (record) {
        digests.push(...companyDigests(record));
        await deleteCompany(trx, record.id);
        await forgetChangesOf(trx, record.id);
        deletedId = record.id;
      }
    }
    const all = unique(digests);
    await insertSuppressions(trx, kind, all);
    return { kind, found: deletedId !== null, deleted_id: deletedId, identifiers_blocked: all.length };
  });
}
