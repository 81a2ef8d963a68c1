/**
 * Single-record reads from the lake. A hit costs one indexed query; only a miss asks whether the
 * identifier was withdrawn (451) rather than never indexed (404).
 */
import type { Knex } from 'knex';
import { findCompanyFreshness, findCompanyJson } from '../../db/repositories/companies';
import { findPersonFreshness, findPersonJson } from '../../db/repositories/persons';
import { notFound } from '../errors';
import type { CompanyKey, PersonKey } from './identifiers';
import { assertNotWithdrawn } from './suppression';

export interface RecordCheck {
  exists: boolean;
  id: string | null;
  fetched_at: string | null;
}

/** The record as stored, as JSON text (callers that only pass it on need not parse it). */
export async function getPersonJson(db: Knex, key: PersonKey): Promise<string> {
  const record = await findPersonJson(db, key);
  if (record) return record;
  await assertNotWithdrawn(db, 'person', key);
  throw notFound('No person with this identifier is indexed in the data lake.');
}

export async function getCompanyJson(db: Knex, key: CompanyKey): Promise<string> {
  const record = await findCompanyJson(db, key);
  if (record) return record;
  await assertNotWithdrawn(db, 'company', key);
  throw notFound('No company with this identifier is indexed in the data lake.');
}

export async function checkPerson(db: Knex, key: PersonKey): Promise<RecordCheck> {
  const row = await findPersonFreshness(db, key);
  if (row) return { exists: true, id: row.id, fetched_at: row.fetched_at.toISOString() };
  await assertNotWithdrawn(db, 'person', key);
  return { exists: false, id: null, fetched_at: null };
}

export async function checkCompany(db: Knex, key: CompanyKey): Promise<RecordCheck> {
  const row = await findCompanyFreshness(db, key);
  if (row) return { exists: true, id: row.id, fetched_at: row.fetched_at.toISOString() };
  await assertNotWithdrawn(db, 'company', key);
  return { exists: false, id: null, fetched_at: null };
}
