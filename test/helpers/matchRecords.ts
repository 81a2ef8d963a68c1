/**
 * Records for the match tests: people and companies with the fields matching reads set together
 * (the record's current fields and its positions agree, as the world's do).
 */
import { randomInt } from 'node:crypto';
import type { CompanyRecord, PersonRecord } from '../../src/model/records';
import { companyRecord, personRecord } from './lakeRecords';

export interface Job {
  company: string;
  companyId: string;
  title?: string;
  current?: boolean;
}

export function matchPerson(first: string, last: string, jobs: Job[], over: Partial<PersonRecord> = {}): PersonRecord {
  const base = personRecord();
  const template = base.positions[0]!;
  const positions = jobs.map((j, i) => ({
    ...template,
    title: j.title ?? 'Account Executive',
    companyName: j.company,
    companyId: j.companyId,
    isCurrent: j.current ?? i === 0,
    location: 'Austin, Texas, United States',
  }));
  const current = jobs[0] && (jobs[0].current ?? true) ? jobs[0] : undefined;
  return personRecord({
    full_name: `${first} ${last}`,
    first_name: first,
    last_name: last,
    current_title: current ? (current.title ?? 'Account Executive') : null,
    current_company: current?.company ?? null,
    current_company_id: current?.companyId ?? null,
    geo_city: 'Austin',
    geo_country: 'United States',
    geo_country_code: 'US',
    positions,
    positions_count: positions.length,
    past_companies: jobs.slice(1).map((j) => j.company),
    education_schools: ['The University of Texas at Austin'],
    ...over,
  });
}

export function matchCompany(name: string, website: string | null, over: Partial<CompanyRecord> = {}): CompanyRecord {
  return companyRecord({ name, website, company_id: String(randomInt(1, 2 ** 47)), hq_city: 'Austin', hq_country: 'United States', hq_country_code: 'US', ...over });
}

/** A surname no other test record has (letters only, as names are). */
export function rareSurname(): string {
  const letters = 'bcdfghjklmnpqrstvwxz';
  let s = '';
  for (let i = 0; i < 6; i++) s += letters[randomInt(letters.length)];
  return `Ka${s}`;
}
