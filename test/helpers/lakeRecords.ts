/**
 * Complete, contract-valid records for lake tests, built from the contract's own named examples
 * (which `redocly lint` validates) with fresh identifiers, so parallel test files never collide on
 * the run's shared database.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { CompanyRecord, PersonRecord } from '../../src/model/records';
import { writeRecords } from '../../src/domain/lake/write/writer';
import { loadDefinition } from '../../src/http/contract';

type Examples = Record<string, { value: { data: unknown } }>;
const examples = () => (loadDefinition() as unknown as { components: { examples: Examples } }).components.examples;

const unique = () => `${Date.now().toString(36)}${randomInt(1 << 30).toString(36)}`;

export function personRecord(overrides: Partial<PersonRecord> = {}): PersonRecord {
  const base = structuredClone(examples().GetPersonFound.value.data) as PersonRecord;
  const username = overrides.username ?? `test-person-${unique()}`;
  return {
    ...base,
    id: randomUUID(),
    username,
    network_url: `https://www.linkedin.com/in/${username}`,
    network_id: String(randomInt(1, 2 ** 47)),
    network_urn: `ACoAA${unique()}${unique()}`,
    ...overrides,
  };
}

export function companyRecord(overrides: Partial<CompanyRecord> = {}): CompanyRecord {
  const base = structuredClone(examples().GetCompanyFound.value.data) as CompanyRecord;
  const username = overrides.username ?? `test-company-${unique()}`;
  return {
    ...base,
    id: randomUUID(),
    company_id: String(randomInt(1, 2 ** 47)),
    username,
    network_url: `https://www.linkedin.com/company/${username}`,
    ...overrides,
  };
}

/** A record's served text in SQL (the stored text with its last re-verification's fetched_at: model/recordText.ts). */
export const SERVED_RECORD = 'lake_record_text(record, fetched_at_text)';

export async function storePersons(db: Knex, ...records: PersonRecord[]): Promise<void> {
  await writeRecords(db, 'person', records);
}

export async function storeCompanies(db: Knex, ...records: CompanyRecord[]): Promise<void> {
  await writeRecords(db, 'company', records);
}
