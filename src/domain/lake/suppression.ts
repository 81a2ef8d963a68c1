/**
 * Privacy withdrawal (GDPR / CCPA). The record is deleted from the lake; what remains is a tombstone
 * of one-way hashes of each of its identifiers, enough to answer 451 for any of them and to refuse
 * the record when it is imported again, and nothing that reveals who it was.
 */
import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../model/records';
import { deleteCompany, findCompanyRecord, vacuumCompanies } from '../../db/repositories/companyRecords';
import { deletePerson, findPersonRecord, vacuumPersons } from '../../db/repositories/personRecords';
import { withdrawAnswersAbout } from '../../db/repositories/idempotencyKeys';
import { hasIdentifierTable } from '../../db/repositories/lakeIdentifiers';
import { forgetJobResultsAbout } from '../../db/repositories/listJobs';
import { withdrawSubjectMonitors } from '../../db/repositories/monitors';
import { insertSuppressions, isSuppressed } from '../../db/repositories/suppressions';
import { dataSubjectBlocked } from '../errors';
import { forgetChangesOf } from './write/changes';
import { canonicalCompanyId, type CompanyKey, type PersonKey } from '../../model/identifiers';
import { normalizeIdentifier, slugKey } from './identifiers';

/** The digest of a key's normalized value (identifiers.ts normalizeIdentifier; UUIDs lower-case). */
export function identifierDigest(kind: LakeKind, key: PersonKey | CompanyKey): string {
  return digest(kind, key.by, key.value);
}

function digest(kind: LakeKind, by: string, value: string): string {
  // crypto.hash (hex by default): one call instead of a Hash object, for the several digests of every record a writer's batch checks.
  return hash('sha256', `${kind}:${by}:${value}`);
}

/**
 * The digests a lookup by this key must check: its normalized form, and the form it had before
 * the one normalization (tombstones written then; see PersonKey.legacy).
 */
export function keyDigests(kind: LakeKind, key: PersonKey | CompanyKey): string[] {
  const digests = [identifierDigest(kind, key)];
  if (key.legacy !== undefined && key.legacy !== key.value) digests.push(digest(kind, key.by, key.legacy));
  return digests;
}

/** The username and the profile URL's slug of a record, each with its legacy form. */
function nameKeys<K extends PersonKey | CompanyKey>(kind: LakeKind, record: { username: string; network_url: string }): K[] {
  const keys: K[] = [{ by: 'username', value: normalizeIdentifier(record.username.trim()), legacy: record.username.trim().toLowerCase() } as K];
  const fromUrl = slugKey<K>(record.network_url, kind === 'person' ? 'in' : 'company');
  if (fromUrl) keys.push(fromUrl);
  return keys;
}

/**
 * The identifiers behind a person's digests, each as `by:value` (a key's normalized form, then its
 * legacy form when it differs): every identifier the record can be reached by, namely id, username,
 * the slug of network_url, and the network IDs. Two records that share none cannot touch the same
 * stored row or tombstone (the importer's lanes rely on this: lanes.ts).
 */
export function personIdentifiers(record: PersonRecord): string[] {
  const keys: PersonKey[] = [{ by: 'id', value: record.id.toLowerCase() }, ...nameKeys<PersonKey>('person', record)];
  if (record.network_id) keys.push({ by: 'network_id', value: record.network_id });
  if (record.network_urn) keys.push({ by: 'network_urn', value: record.network_urn });
  return unique(keys.flatMap(identifierTexts));
}

/** As personIdentifiers: id, company_id, username and the slug of network_url. */
export function companyIdentifiers(record: CompanyRecord): string[] {
  const keys: CompanyKey[] = [
    { by: 'id', value: record.id.toLowerCase() },
    { by: 'company_id', value: canonicalCompanyId(record.company_id) },
    ...nameKeys<CompanyKey>('company', record),
  ];
  return unique(keys.flatMap(identifierTexts));
}

/** A key's `by:value` texts, as keyDigests hashes them. */
function identifierTexts(key: PersonKey | CompanyKey): string[] {
  const texts = [`${key.by}:${key.value}`];
  if (key.legacy !== undefined && key.legacy !== key.value) texts.push(`${key.by}:${key.legacy}`);
  return texts;
}

const digestOf = (kind: LakeKind) => (text: string) => hash('sha256', `${kind}:${text}`);

/** Every identifier a record can be reached by, as digests (personIdentifiers hashed). */
export function personDigests(record: PersonRecord): string[] {
  return personIdentifiers(record).map(digestOf('person'));
}

export function companyDigests(record: CompanyRecord): string[] {
  return companyIdentifiers(record).map(digestOf('company'));
}

const unique = (values: string[]) => [...new Set(values)];

// The 451 itself lives with the other errors (domain/errors.ts), so a room that only answers it
// (webhooks/) does not import the lake, which imports webhooks/ (no circle between rooms).
export { dataSubjectBlocked };

/** Every identifier digest of a record of either kind (personDigests, companyDigests). */
export const recordDigests = (kind: LakeKind, record: PersonRecord | CompanyRecord): string[] =>
  kind === 'person' ? personDigests(record as PersonRecord) : companyDigests(record as CompanyRecord);

/** Whether any identifier of this record was withdrawn (a stored copy of it must not be served). */
export async function isRecordWithdrawn(db: Knex, kind: LakeKind, record: PersonRecord | CompanyRecord): Promise<boolean> {
  return isSuppressed(db, recordDigests(kind, record));
}

/** Whether the identifier belongs to a withdrawn record. Asked after a lookup found nothing. */
export const isWithdrawn = (db: Knex, kind: LakeKind, key: PersonKey | CompanyKey): Promise<boolean> =>
  isSuppressed(db, keyDigests(kind, key));

/** Throws 451 when the identifier belongs to a withdrawn record. Called after a lookup found nothing. */
export async function assertNotWithdrawn(db: Knex, kind: LakeKind, key: PersonKey | CompanyKey): Promise<void> {
  if (await isWithdrawn(db, kind, key)) throw dataSubjectBlocked();
}

export interface SuppressionOutcome {
  kind: LakeKind;
  /** Whether a record was in the lake (and was deleted). The identifier is blocked either way. */
  found: boolean;
  deleted_id: string | null;
  identifiers_blocked: number;
}

/**
 * Withdraws a record, and every stored copy of it (the README's "What withdrawal erases" lists
 * them): the lake row and the refresh queue row with it; the change log's diffs and subject id, and
 * the queued webhook deliveries (lake/write/changes.ts forgetChangesOf); the realtime answers stored
 * under Idempotency-Keys; the list jobs' results naming a person; the monitors on the subject (deactivated, slug and label erased). When the
 * record is not (yet) in the lake, the named identifier alone is blocked, so the record is refused
 * if it arrives later, and the monitors named by it are withdrawn too. All in one transaction.
 */
export async function suppress(db: Knex, kind: 'person', key: PersonKey): Promise<SuppressionOutcome>;
export async function suppress(db: Knex, kind: 'company', key: CompanyKey): Promise<SuppressionOutcome>;
export async function suppress(db: Knex, kind: LakeKind, key: PersonKey | CompanyKey): Promise<SuppressionOutcome> {
  return db.transaction(async (trx) => {
    const digests = keyDigests(kind, key);
    // The slugs a monitor may hold for this subject: the named one, then the record's own.
    const slugs = key.by === 'username' ? [key.value, ...(key.legacy === undefined ? [] : [key.legacy])] : [];
    const record =
      kind === 'person'
        ? await findPersonRecord(trx, key.by as PersonKey['by'], key.value)
        : await findCompanyRecord(trx, key.by as CompanyKey['by'], key.value);
    if (record) {
      digests.push(...(kind === 'person' ? personDigests(record as PersonRecord) : companyDigests(record as CompanyRecord)));
      slugs.push(...nameKeys(kind, record).flatMap((k) => [k.value, ...(k.legacy === undefined ? [] : [k.legacy])]));
      await (kind === 'person' ? deletePerson(trx, record.id) : deleteCompany(trx, record.id));
      await forgetChangesOf(trx, record.id);
      // List jobs' stored results that name the person (issue 34): unmatched, record erased.
      if (kind === 'person') await forgetJobResultsAbout(trx, record.id);
    }
    await withdrawSubjectMonitors(trx, kind, slugs);
    const all = unique(digests);
    // Exclusive with a realtime call storing an answer about the subject (idempotencyKeys.ts
    // answerLockTexts): its locks first, then the erase and the tombstones, committed together.
    await withdrawAnswersAbout(trx, record?.id ?? null, all);
    await insertSuppressions(trx, kind, all);
    return { kind, found: record !== undefined, deleted_id: record?.id ?? null, identifiers_blocked: all.length };
  });
}

/**
 * After `enrich suppress`: deleted rows linger in table pages until vacuumed; withdrawal means
 * gone. Outside any transaction (VACUUM cannot run in one). On one PostgreSQL the record's tables
 * are vacuumed (only pages the visibility map does not mark all-visible are read). Not on the
 * distributed layout (issue 32, row 18): a VACUUM there runs on every shard of every table (96
 * statements for one person), so the withdrawn rows' pages are reclaimed by each worker's
 * autovacuum, as the README says. Returns whether it vacuumed.
 */
export async function reclaimWithdrawnSpace(db: Knex, kind: LakeKind): Promise<boolean> {
  if (await hasIdentifierTable(db)) return false;
  await (kind === 'person' ? vacuumPersons(db) : vacuumCompanies(db));
  return true;
}
