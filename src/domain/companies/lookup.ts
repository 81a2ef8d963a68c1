/** getCompany and checkCompany: single-record reads from the lake (answers: lake/presence.ts). */
import type { Knex } from 'knex';
import { findCompanyFreshness, findCompanyJson } from '../../db/repositories/companyRecords';
import type { CompanyKey } from '../../model/identifiers';
import { checkedOr451, foundOr451Or404, type RecordCheck } from '../lake/presence';

/** The record as stored, as JSON text (callers that only pass it on need not parse it). */
export async function getCompany(db: Knex, key: CompanyKey): Promise<string> {
  return foundOr451Or404(db, 'company', key, await findCompanyJson(db, key.by, key.value));
}

export async function checkCompany(db: Knex, key: CompanyKey): Promise<RecordCheck> {
  return checkedOr451(db, 'company', key, await findCompanyFreshness(db, key.by, key.value));
}
