/**
 * The one write path into the lake, shared by import, seed and (later) realtime refreshes: dedupes
 * a batch, drops records of withdrawn data subjects, and upserts the rest in one transaction.
 */
import type { Knex } from 'knex';
import { upsertCompanies, type CompanyRecord } from '../../db/repositories/companyRecords';
import { upsertPersons, type PersonRecord } from '../../db/repositories/personRecords';
import { insertSuppressions, suppressedDigests } from '../../db/repositories/suppressions';
import { companyDigests, personDigests, type LakeKind } from './suppression';

export interface WriteOutcome {
  /** Records inserted or replaced. */
  written: number;
  /** Records refused because one of their identifiers was withdrawn (privacy request). */
  withdrawn: number;
  /** Records superseded by a later record with the same identifier in the same batch. */
  duplicates: number;
}

type LakeRecord<K extends LakeKind> = K extends 'person' ? PersonRecord : CompanyRecord;

/** Identity keys that must be unique within one statement; the last record wins, as a later line would. */
function identityKeys(kind: LakeKind, record: PersonRecord | CompanyRecord): string[] {
  const keys = [`id:${record.id.toLowerCase()}`, `username:${record.username.toLowerCase()}`];
  if (kind === 'company') keys.push(`company_id:${BigInt((record as CompanyRecord).company_id)}`);
  return keys;
}

function lastWins<R extends PersonRecord | CompanyRecord>(kind: LakeKind, records: readonly R[]): R[] {
  const owner = new Map<string, number>();
  records.forEach((r, i) => identityKeys(kind, r).forEach((k) => owner.set(k, i)));
  return records.filter((r, i) => identityKeys(kind, r).every((k) => owner.get(k) === i));
}

type Position = PersonRecord['positions'][number];

/** The contract serves work history newest first: current roles, then by start date, latest first. */
function newestFirst(a: Position, b: Position): number {
  return Number(b.isCurrent) - Number(a.isCurrent) || b.startYear - a.startYear || b.startMonth - a.startMonth;
}

function normalize(kind: LakeKind, record: PersonRecord | CompanyRecord): PersonRecord | CompanyRecord {
  if (kind !== 'person') return record;
  const person = record as PersonRecord;
  const sorted = [...person.positions].sort(newestFirst);
  return sorted.every((p, i) => p === person.positions[i]) ? person : { ...person, positions: sorted };
}

export async function writeRecords<K extends LakeKind>(
  db: Knex | Knex.Transaction,
  kind: K,
  records: readonly LakeRecord<K>[],
): Promise<WriteOutcome> {
  const unique = lastWins(kind, records as readonly (PersonRecord | CompanyRecord)[]).map((r) => normalize(kind, r));
  const digestsOf = (r: PersonRecord | CompanyRecord) =>
    kind === 'person' ? personDigests(r as PersonRecord) : companyDigests(r as CompanyRecord);
  const write = async (trx: Knex.Transaction): Promise<WriteOutcome> => {
    const blocked = await suppressedDigests(trx, unique.flatMap(digestsOf));
    const refused = blocked.size ? unique.filter((r) => digestsOf(r).some((d) => blocked.has(d))) : [];
    const allowed = refused.length ? unique.filter((r) => !refused.includes(r)) : unique;
    // A record refused for one withdrawn identifier is withdrawn by all of its identifiers from now on.
    if (refused.length) await insertSuppressions(trx, kind, refused.flatMap(digestsOf));
    if (kind === 'person') await upsertPersons(trx, allowed as PersonRecord[]);
    else await upsertCompanies(trx, allowed as CompanyRecord[]);
    return { written: allowed.length, withdrawn: unique.length - allowed.length, duplicates: records.length - unique.length };
  };
  return db.isTransaction ? write(db as Knex.Transaction) : db.transaction(write);
}
