import { diffCompanies, diffPersons, isSameRecord } from '../../../src/domain/lake/write/diff';
import type { CompanyRecord, PersonRecord } from '../../../src/model/records';
import { createWorld } from '../../../src/world';

const world = createWorld({ persons: 20, companies: 5, seed: 3, asOf: new Date('2026-11-01T00:00:00Z') });
const person = () => world.person(7) as PersonRecord;
const company = () => world.company(2) as CompanyRecord;

describe('diffPersons', () => {
  it('finds nothing in an identical copy, whatever its fetched_at', () => {
    expect(diffPersons(person(), { ...person(), fetched_at: '2030-01-01T00:00:00Z' })).toEqual([]);
  });

  it('a new employer is one job change, with the old and new company and title', () => {
    const old = person();
    const next = { ...person(), current_company: 'Other Co', current_company_id: '99', current_title: 'CTO' };
    expect(diffPersons(old, next)).toEqual([
      {
        kind: 'person',
        subjectId: old.id,
        event: 'person.job_changed',
        diff: {
          old_company: old.current_company,
          new_company: 'Other Co',
          old_company_id: old.current_company_id,
          new_company_id: '99',
          old_title: old.current_title,
          new_title: 'CTO',
        },
      },
    ]);
  });

  it('compares employers by company ID when both have one: a renamed employer is not a job change', () => {
    const next = { ...person(), current_company: 'Renamed Holdings' };
    expect(diffPersons(person(), next)).toEqual([]);
    // Without IDs, names decide (letter case ignored).
    const a = { ...person(), current_company_id: null, current_company: 'Acme' };
    expect(diffPersons(a, { ...a, current_company: 'ACME' })).toEqual([]);
    expect(diffPersons(a, { ...a, current_company: 'Acme 2' }).map((e) => e.event)).toEqual(['person.job_changed']);
  });

  it('a new title at the same employer is a title change; no employer before or after is a job change with nulls', () => {
    const old = person();
    expect(diffPersons(old, { ...old, current_title: 'Chief Dreamer' })).toEqual([
      {
        kind: 'person',
        subjectId: old.id,
        event: 'person.title_changed',
        diff: { old_title: old.current_title, new_title: 'Chief Dreamer', company: old.current_company, company_id: old.current_company_id },
      },
    ]);
    const unemployed = { ...old, current_company: null, current_company_id: null, current_title: null };
    const [entry] = diffPersons(unemployed, old);
    expect(entry).toMatchObject({ event: 'person.job_changed', diff: { old_company: null, old_company_id: null, new_company: old.current_company } });
  });

  it('a new city or country is a location change (country code letter case ignored)', () => {
    const old = person();
    expect(diffPersons(old, { ...old, geo_country_code: old.geo_country_code!.toLowerCase() })).toEqual([]);
    const moved = diffPersons(old, { ...old, geo_city: 'Atlantis' });
    expect(moved).toEqual([
      {
        kind: 'person',
        subjectId: old.id,
        event: 'person.location_changed',
        diff: { old_city: old.geo_city, new_city: 'Atlantis', old_country_code: old.geo_country_code, new_country_code: old.geo_country_code },
      },
    ]);
  });

  it('reports a job change and a move together', () => {
    const next = { ...person(), current_company: 'X', current_company_id: '1', geo_city: 'Y' };
    expect(diffPersons(person(), next).map((e) => e.event)).toEqual(['person.job_changed', 'person.location_changed']);
  });
});

describe('diffCompanies', () => {
  it('finds each change type once, and nothing in an identical copy', () => {
    const old = company();
    expect(diffCompanies(old, { ...company(), fetched_at: 'x' })).toEqual([]);
    const next = {
      ...company(),
      staff_count: (old.staff_count ?? 0) + 17,
      name: 'New Name',
      hq_city: 'Elsewhere',
      industries: [...old.industries, 'Banking'],
    };
    expect(diffCompanies(old, next)).toEqual([
      { kind: 'company', subjectId: old.id, event: 'company.headcount_changed', diff: { old_staff_count: old.staff_count, new_staff_count: next.staff_count, change: 17 } },
      { kind: 'company', subjectId: old.id, event: 'company.name_changed', diff: { old_name: old.name, new_name: 'New Name' } },
      {
        kind: 'company',
        subjectId: old.id,
        event: 'company.hq_changed',
        diff: { old_hq_city: old.hq_city, new_hq_city: 'Elsewhere', old_hq_country_code: old.hq_country_code, new_hq_country_code: old.hq_country_code },
      },
      { kind: 'company', subjectId: old.id, event: 'company.industry_changed', diff: { old_industries: old.industries, new_industries: next.industries } },
    ]);
  });

  it('industry order alone is no change; an unknown headcount gives change null', () => {
    const old = { ...company(), industries: ['Banking', 'Insurance'] };
    expect(diffCompanies(old, { ...old, industries: ['Insurance', 'Banking'] })).toEqual([]);
    const [entry] = diffCompanies(old, { ...old, staff_count: null });
    expect(entry!.diff).toEqual({ old_staff_count: old.staff_count, new_staff_count: null, change: null });
  });
});

describe('isSameRecord', () => {
  const p = person();
  const text = JSON.stringify(p);
  const parse = (next: object) => () => ({ old: JSON.parse(text) as object, next });
  it('ignores fetched_at, without parsing when the texts agree', () => {
    const next = { ...p, fetched_at: '2031-01-01T00:00:00Z' };
    expect(isSameRecord(text, JSON.stringify(next), () => { throw new Error('parsed'); })).toBe(true);
  });
  it('ignores key order, and sees any other difference', () => {
    const reordered = Object.fromEntries(Object.entries(p).reverse());
    expect(isSameRecord(text, JSON.stringify(reordered), parse(reordered))).toBe(true);
    const other = { ...p, headline: 'something else' };
    expect(isSameRecord(text, JSON.stringify(other), parse(other))).toBe(false);
  });
});
