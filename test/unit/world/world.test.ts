import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { isDeepStrictEqual } from 'node:util';

import openapi from '../../../generated/openapi.json';
import { inferSeniority } from '../../../src/domain/people/seniority';
import { FORMAL_OF } from '../../../src/world/names';
import { createWorld, defaultAsOf, INDUSTRIES, STAFF_RANGES, staffRangeFor, type CompanyResult, type PersonResult } from '../../../src/world';
import { FAMILIES, SENIORITY_OF_TIER, titlesFor, CEO_TITLES } from '../../../src/world/tables';

const asOf = new Date('2026-11-21T00:00:00Z');
const asOfMonth = asOf.getUTCFullYear() * 12 + asOf.getUTCMonth();
const monthIndex = (year: number, month: number): number => year * 12 + month - 1;
const DAY = 86_400_000;

/*
 * Fast paths for the checks made per record and per field over thousands of records (about 200,000
 * of them in this file): jest's expect() builds its whole matcher object on every call, which made
 * those loops most of the file's time. Each helper calls expect only when its plain comparison
 * fails, and then with the same matcher, so what passes and what a failure says are unchanged.
 */
const is = (actual: unknown, expected: unknown) => Object.is(actual, expected) || expect(actual).toBe(expected);
const same = (actual: unknown, expected: unknown) => isDeepStrictEqual(actual, expected) || expect(actual).toEqual(expected);
const isNull = (actual: unknown) => actual === null || expect(actual).toBeNull();
const matches = (actual: unknown, re: RegExp) => (typeof actual === 'string' && re.test(actual)) || expect(actual).toMatch(re);
const hasLength = (actual: { length: number }, n: number) => actual.length === n || expect(actual).toHaveLength(n);
const above = (a: number, b: number) => a > b || expect(a).toBeGreaterThan(b);
const atLeast = (a: number, b: number) => a >= b || expect(a).toBeGreaterThanOrEqual(b);
const below = (a: number, b: number) => a < b || expect(a).toBeLessThan(b);
const atMost = (a: number, b: number) => a <= b || expect(a).toBeLessThanOrEqual(b);

function validator(name: string): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...openapi, $id: 'https://enrich.test/openapi.json' });
  const validate = ajv.getSchema(`https://enrich.test/openapi.json#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`no schema ${name}`);
  return validate;
}

function expectValid(validate: ValidateFunction, record: unknown, what: string): void {
  if (!validate(record)) throw new Error(`${what} does not match the contract: ${JSON.stringify(validate.errors, null, 1)}`);
}

describe('synthetic world: contract', () => {
  const validatePerson = validator('PersonResult');
  const validateCompany = validator('CompanyResult');

  it('300 persons and 50 companies validate against PersonResult and CompanyResult', () => {
    const world = createWorld({ persons: 3000, companies: 300, seed: 11, asOf });
    for (let i = 0; i < 300; i++) expectValid(validatePerson, world.person(i * 10), `person ${i * 10}`);
    for (let i = 0; i < 50; i++) expectValid(validateCompany, world.company(i * 6), `company ${i * 6}`);
  });

  it('tiny worlds validate too (one company, a handful of persons)', () => {
    const world = createWorld({ persons: 7, companies: 1, seed: 0, asOf });
    for (const p of world.personRecords()) expectValid(validatePerson, p, `person ${p.username}`);
    for (const c of world.companyRecords()) expectValid(validateCompany, c, `company ${c.username}`);
    expect(createWorld({ persons: 0, companies: 0, seed: 1, asOf }).personRecords().next().done).toBe(true);
  });
});

describe('synthetic world: determinism and independence', () => {
  const options = { persons: 2000, companies: 150, seed: 42, asOf };

  it('same options give byte-identical records; another seed gives other records', () => {
    const a = createWorld(options);
    const b = createWorld(options);
    const c = createWorld({ ...options, seed: 43 });
    for (const i of [0, 1, 999, 1999]) {
      expect(JSON.stringify(b.person(i))).toBe(JSON.stringify(a.person(i)));
      expect(JSON.stringify(c.person(i))).not.toBe(JSON.stringify(a.person(i)));
    }
    for (const i of [0, 77, 149]) {
      expect(JSON.stringify(b.company(i))).toBe(JSON.stringify(a.company(i)));
      expect(JSON.stringify(c.company(i))).not.toBe(JSON.stringify(a.company(i)));
    }
  });

  it('person(k) equals the k-th of personRecords(), whatever was generated before', () => {
    const streamed = [...createWorld(options).personRecords()].slice(0, 400).map((p) => JSON.stringify(p));
    const fresh = createWorld(options);
    for (const k of [399, 0, 250, 17]) expect(JSON.stringify(fresh.person(k))).toBe(streamed[k]);
    const companies = [...createWorld(options).companyRecords()].map((c) => JSON.stringify(c));
    const other = createWorld(options);
    for (const k of [149, 3, 60]) expect(JSON.stringify(other.company(k))).toBe(companies[k]);
  });

  it('dates are relative to asOf, which defaults to today 00:00 UTC', () => {
    expect(defaultAsOf(new Date('2026-11-21T15:30:12.345Z')).toISOString()).toBe('2026-11-21T00:00:00.000Z');
    expect(createWorld({ persons: 1, companies: 1, seed: 1 }).asOf.toISOString()).toBe(defaultAsOf().toISOString());
    const later = createWorld({ ...options, asOf: new Date('2027-05-01T00:00:00Z') });
    expect(later.person(5).positions[0]?.startYear).toBeGreaterThanOrEqual(createWorld(options).person(5).positions[0]?.startYear as number);
  });

  it('rejects bad options and out-of-range indexes', () => {
    expect(() => createWorld({ persons: -1, companies: 1, seed: 1 })).toThrow(RangeError);
    expect(() => createWorld({ persons: 10, companies: 0, seed: 1 })).toThrow(RangeError);
    expect(() => createWorld({ persons: 1, companies: 1, seed: 1.5 })).toThrow(RangeError);
    expect(() => createWorld({ persons: 2 ** 24 + 1, companies: 1, seed: 1 })).toThrow(RangeError);
    const world = createWorld({ persons: 3, companies: 2, seed: 1, asOf });
    expect(() => world.person(3)).toThrow(RangeError);
    expect(() => world.company(-1)).toThrow(RangeError);
  });
});

describe('synthetic world: identifiers', () => {
  it('are unique by construction over thousands of records, with the documented shapes', () => {
    const world = createWorld({ persons: 4000, companies: 2000, seed: 5, asOf });
    const persons = [...world.personRecords()];
    const companies = [...world.companyRecords()];
    const unique = (values: unknown[]): void => expect(new Set(values).size).toBe(values.length);
    unique(persons.map((p) => p.id));
    unique(persons.map((p) => p.username));
    unique(persons.map((p) => p.network_id));
    unique(persons.map((p) => p.network_urn));
    unique(companies.map((c) => c.id));
    unique(companies.map((c) => c.company_id));
    unique(companies.map((c) => c.username));
    unique([...persons.map((p) => p.id), ...companies.map((c) => c.id)]);
    for (const p of persons) {
      matches(p.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      matches(p.username, /^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{6}$/);
      is(p.network_url, `https://www.linkedin.com/in/${p.username}/`);
      matches(p.network_id, /^[0-9]{1,19}$/);
      matches(p.network_urn, /^ACoAA[A-Za-z0-9_-]{34}$/);
    }
    for (const c of companies) {
      matches(c.username, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      is(c.network_url, `https://www.linkedin.com/company/${c.username}/`);
    }
  });
});

describe('synthetic world: coherence', () => {
  const world = createWorld({ persons: 3000, companies: 250, seed: 2026, asOf });
  const persons: PersonResult[] = [...world.personRecords()];
  const companies: CompanyResult[] = [...world.companyRecords()];
  const byCompanyId = new Map(companies.map((c) => [c.company_id, c]));
  const employees = new Map<string, PersonResult[]>();
  for (const p of persons) employees.set(p.current_company_id as string, [...(employees.get(p.current_company_id as string) ?? []), p]);

  it('the current position is at a company of the world, and the current_* fields copy it', () => {
    for (const p of persons) {
      const current = p.positions[0];
      const company = byCompanyId.get(p.current_company_id as string);
      is(current?.isCurrent, true);
      company !== undefined || expect(company).toBeDefined();
      if (current === undefined || company === undefined) continue;
      same([current.companyName, current.companyUsername, current.companyIndustry, current.companyStaffCountRange], [
        company.name, company.username, company.industries[0], staffRangeFor(company.staff_count as number).label,
      ]);
      is(current.companyId, company.company_id);
      is(current.companyURL, company.network_url);
      is(current.companyLogo, company.logo_url);
      same([p.current_title, p.current_company, p.current_company_id, p.current_company_username, p.current_company_industry, p.current_company_staff_range], [
        current.title, current.companyName, current.companyId, current.companyUsername, current.companyIndustry, current.companyStaffCountRange,
      ]);
      is(p.seniority, inferSeniority(p.current_title));
    }
  });

  it('positions are newest first with plausible, non-overlapping dates at distinct world employers', () => {
    for (const p of persons) {
      is(p.positions_count, p.positions.length);
      atLeast(p.positions.length, 1);
      atMost(p.positions.length, 6);
      let newerStart = asOfMonth + 1;
      for (const [k, q] of p.positions.entries()) {
        const company = byCompanyId.get(q.companyId);
        // A past position that ended before its company's rename keeps the former name (names.ts).
        if (k === 0 || q.companyName === company?.name) is(company?.name, q.companyName);
        else is(q.companyName, world.formerCompany(world.companyIndexOf({ companyId: q.companyId as string }) as number)?.name);
        is(company?.username, q.companyUsername);
        is(company?.industries[0], q.companyIndustry);
        is(q.companyStaffCountRange, staffRangeFor(company?.staff_count as number).label);
        is(q.isCurrent, k === 0);
        const start = monthIndex(q.startYear, q.startMonth);
        above(q.startYear, 1950);
        if (k === 0) {
          isNull(q.endYear);
          isNull(q.endMonth);
          atMost(start, asOfMonth);
        } else {
          const end = monthIndex(q.endYear as number, q.endMonth as number);
          atLeast(end, start);
          below(end, newerStart);
        }
        newerStart = start;
      }
      is(new Set(p.positions.map((q) => q.companyId)).size, p.positions.length);
      const ended = p.positions.filter((q) => !q.isCurrent).map((q) => q.companyName);
      same(p.past_companies, [...new Set(ended)]);
    }
    const withHistory = persons.filter((p) => p.positions.length >= 2).length / persons.length;
    above(withHistory, 0.65);
    const withSeveral = persons.filter((p) => p.past_companies.length >= 2).length / persons.length;
    above(withSeveral, 0.3);
  });

  it('about 10% started the current role in the last six months, some in the current month', () => {
    const since = persons.map((p) => asOfMonth - monthIndex(p.positions[0]?.startYear as number, p.positions[0]?.startMonth as number));
    const recent = since.filter((m) => m < 6).length / persons.length;
    expect(recent).toBeGreaterThan(0.07);
    expect(recent).toBeLessThan(0.14);
    expect(since.filter((m) => m === 0).length).toBeGreaterThan(0);
  });

  it('counts and previews match their arrays', () => {
    for (const p of persons) {
      is(p.skills_count, p.skills.length);
      atLeast(p.skills.length, 3);
      atMost(p.skills.length, 25);
      is(new Set(p.skills.map((s) => s.name)).size, p.skills.length);
      const sorted = [...p.skills].sort((a, b) => b.endorsementsCount - a.endorsementsCount);
      same(p.skills.map((s) => s.endorsementsCount), sorted.map((s) => s.endorsementsCount));
      same(p.skills_preview, p.skills.slice(0, 3).map((s) => s.name));
      is(p.certifications_count, p.certifications.length);
      is(p.educations_count, p.educations.length);
      same(p.education_schools, p.educations.map((e) => e.schoolName));
      atLeast(p.educations.length, 1);
      is(p.full_name, `${p.first_name} ${p.last_name}`);
      const fetched = Date.parse(p.fetched_at);
      atMost(fetched, asOf.getTime());
      atLeast(fetched, asOf.getTime() - 30 * DAY);
      matches(p.fetched_at, /Z$/);
      if (p.background_image_url !== null) hasLength(p.background_image_url, 2);
      matches(p.primary_locale_country, /^[A-Z]{2}$/);
      matches(p.primary_locale_language, /^[a-z]{2}$/);
    }
  });

  it('schools are shared, and one school name always has the same page', () => {
    const bySchool = new Map<string, Set<string | null>>();
    const alumni = new Map<string, number>();
    for (const p of persons) {
      for (const e of p.educations) {
        bySchool.set(e.schoolName, (bySchool.get(e.schoolName) ?? new Set()).add(e.schoolId));
        alumni.set(e.schoolName, (alumni.get(e.schoolName) ?? 0) + 1);
      }
    }
    for (const ids of bySchool.values()) expect(ids.size).toBe(1);
    const counts = [...alumni.values()].sort((a, b) => b - a);
    expect(counts[0]).toBeGreaterThan(100);
    expect(counts.filter((n) => n >= 10).length).toBeGreaterThan(10);
  });

  it('nullable signals are mostly null, and true when set', () => {
    for (const field of ['is_open_to_work', 'is_hiring'] as const) {
      const values = persons.map((p) => p[field]);
      expect(values.every((v) => v === null || v === true)).toBe(true);
      expect(values.filter((v) => v === null).length / values.length).toBeGreaterThan(0.8);
      expect(values.filter((v) => v === true).length).toBeGreaterThan(0);
    }
    expect(persons.filter((p) => p.languages === null).length).toBeGreaterThan(0);
    expect(persons.filter((p) => p.languages !== null).length / persons.length).toBeGreaterThan(0.5);
  });

  it('seniority has a realistic mix, and every company with 20+ employees has decision makers', () => {
    const share = (band: string | null): number => persons.filter((p) => p.seniority === band).length / persons.length;
    expect(share(null)).toBeGreaterThan(0.6);
    for (const band of ['c-level', 'vp', 'director', 'manager']) expect(share(band)).toBeGreaterThan(0.005);
    expect(share('c-level')).toBeLessThan(0.08);
    for (const staff of employees.values()) {
      if (staff.length < 20) continue;
      expect(staff.filter((p) => p.seniority === 'c-level').length).toBeGreaterThanOrEqual(1);
      expect(staff.filter((p) => p.seniority === 'vp' || p.seniority === 'director').length).toBeGreaterThanOrEqual(2);
    }
  });

  it('companies: staff count within its range and not below the world employees; HQ, verification and call to action agree', () => {
    const rangePattern = /^(\d+) - (\d+)$/;
    for (const c of companies) {
      const staff = c.staff_count as number;
      expect(staff).toBeGreaterThanOrEqual(employees.get(c.company_id)?.length ?? 0);
      const range = staffRangeFor(staff);
      const [, low, high] = rangePattern.exec(range.label) ?? [];
      expect(staff).toBeLessThanOrEqual(Number(high));
      expect(staff).toBeGreaterThanOrEqual(Math.min(Number(low), range.min));
      expect(c.industries.length).toBeGreaterThanOrEqual(1);
      for (const industry of c.industries) expect(INDUSTRIES).toContain(industry);
      const hqs = c.locations.filter((l) => l.isHeadquarter);
      expect(hqs).toHaveLength(1);
      expect(c.locations[0]).toBe(hqs[0]);
      expect(hqs[0]).toMatchObject({
        city: c.hq_city, country: c.hq_country_code, countryCode: c.hq_country_code, postalCode: c.hq_postal_code,
        line1: c.hq_line1, line2: c.hq_line2, geographicArea: c.hq_geographic_area, description: c.hq_description,
      });
      expect(c.hq_country_code).toMatch(/^[A-Z]{2}$/);
      expect(c.hq_country?.length).toBeGreaterThan(2);
      expect(c.is_verified).toBe(c.page_verification === null ? null : c.page_verification.verified);
      if (c.page_verification !== null && !c.page_verification.verified) expect(c.page_verification.lastModifiedAt).toBe(0);
      if (c.page_verification?.verified) expect(c.page_verification.lastModifiedAt).toBeLessThanOrEqual(asOf.getTime());
      expect(c.call_to_action_url).toBe(c.call_to_action === null ? null : c.call_to_action.url);
      expect(new Set(c.locations.map((l) => l.city)).size).toBe(c.locations.length);
    }
    expect(companies.some((c) => c.call_to_action === null)).toBe(true);
    expect(companies.some((c) => c.call_to_action !== null)).toBe(true);
    expect(companies.some((c) => c.is_verified === true)).toBe(true);
    expect(companies.some((c) => c.locations.length > 1)).toBe(true);
  });

  it('every generated title sits in the band its tier intends', () => {
    for (const family of FAMILIES) {
      for (let tier = 0; tier <= 4; tier++) {
        for (const title of titlesFor(family, tier)) expect([title, inferSeniority(title)]).toEqual([title, SENIORITY_OF_TIER[tier]]);
      }
    }
    for (const title of CEO_TITLES) expect(inferSeniority(title)).toBe('c-level');
    expect(STAFF_RANGES.map((r) => r.label)).toContain('10001 - 10000000');
  });
});

describe('synthetic world: heavy tail', () => {
  // 30,000 persons over 10,000 companies (3 per company on average) and still one with 1,000+: the
  // Zipf allocation gives the largest about 4 % of the persons whatever their number (1,207 here).
  // It was 100,000 persons, the same property at three times the generation (the file's main cost).
  const world10k = createWorld({ persons: 30_000, companies: 10_000, seed: 9, asOf });
  it('with 30,000 persons and 10,000 companies the largest company has 1,000+ current employees', () => {
    const world = world10k;
    const counts = new Map<string, number>();
    for (const p of world.personRecords()) counts.set(p.current_company_id as string, (counts.get(p.current_company_id as string) ?? 0) + 1);
    const largest = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] as [string, number];
    expect(largest[1]).toBeGreaterThanOrEqual(1000);
    const index = [...Array(world.companies).keys()].find((i) => world.company(i).company_id === largest[0]) as number;
    expect(world.company(index).staff_count).toBeGreaterThanOrEqual(largest[1]);
  });

  // A domain has one registrant: many companies share a name (a surname and an industry word: 45% of
  // the 100,000 of the 1M world's shared their website's host before), none shares a domain.
  it('no two companies share a domain, and a company keeps its domain in a larger world of the same seed', () => {
    const hosts = new Map<string, number>();
    const names = new Map<string, number>();
    for (let i = 0; i < world10k.companies; i++) {
      const c = world10k.company(i);
      names.set(c.name as string, (names.get(c.name as string) ?? 0) + 1);
      if (!c.website) continue;
      const host = new URL(c.website).hostname.replace(/^www\./, '');
      if (hosts.has(host)) throw new Error(`companies ${hosts.get(host)} and ${i} share ${host}`);
      hosts.set(host, i);
    }
    expect([...names.values()].filter((n) => n > 1).length).toBeGreaterThan(100);
    // Domains are drawn in index order, so they do not depend on how many companies follow; asked
    // out of order (the last company first), the same.
    const small = createWorld({ persons: 3000, companies: 2000, seed: 9, asOf });
    const backwards = createWorld({ persons: 3000, companies: 2000, seed: 9, asOf });
    for (let i = 1999; i >= 0; i -= 7) expect(backwards.company(i).website).toBe(small.company(i).website);
    for (let i = 0; i < 2000; i += 3) expect(small.company(i).website).toBe(world10k.company(i).website);
  });
});

describe('synthetic world: what real lists meet (issue 33, matching)', () => {
  const world = createWorld({ persons: 3000, companies: 150, seed: 2026, asOf });
  const persons: PersonResult[] = [...world.personRecords()];
  const companies: CompanyResult[] = [...world.companyRecords()];
  const share = (n: number) => n / persons.length;

  it('namesakes share a full name at the same company, and common names recur across companies', () => {
    const namesakes = persons.filter((_, i) => world.isNamesake(i));
    expect(namesakes.length).toBeGreaterThan(20);
    const atCompany = new Map<string, string[]>();
    for (const p of namesakes) atCompany.set(p.current_company_id as string, [...(atCompany.get(p.current_company_id as string) ?? []), p.last_name as string]);
    // Each company's namesakes (two by construction) share their last name; first names may differ by a nickname or middle name.
    for (const lastNames of atCompany.values()) {
      expect(lastNames).toHaveLength(2);
      expect(new Set(lastNames).size).toBe(1);
    }
    const companiesOf = new Map<string, Set<string>>();
    for (const p of persons) companiesOf.set(p.full_name as string, (companiesOf.get(p.full_name as string) ?? new Set()).add(p.current_company_id as string));
    expect([...companiesOf.values()].filter((s) => s.size > 1).length).toBeGreaterThan(5);
  });

  it('nicknames, middle names or initials and accents appear in the names profiles show', () => {
    const firsts = persons.map((p) => p.first_name as string);
    const nick = firsts.filter((f) => FORMAL_OF.has((f.split(' ')[0] as string).toLowerCase())).length;
    expect(share(nick)).toBeGreaterThan(0.005);
    const middle = firsts.filter((f) => / [A-Z]\.$/.test(f)).length;
    expect(share(middle)).toBeGreaterThan(0.03);
    expect(share(middle)).toBeLessThan(0.1);
    const accented = persons.filter((p) => /[^\u0000-\u007f]/.test(p.full_name as string)).length;
    expect(share(accented)).toBeGreaterThan(0.03);
    for (const p of persons) expect(p.full_name).toBe(`${p.first_name} ${p.last_name}`);
  });

  it('about 5% of companies were renamed; past positions ended before the rename carry the former name', () => {
    const renamed = companies.map((_, i) => world.formerCompany(i)).filter((c) => c !== undefined);
    expect(renamed.length).toBeGreaterThan(2);
    expect(renamed.length).toBeLessThan(companies.length * 0.12);
    for (const former of renamed) {
      const current = companies.find((c) => c.id === former.id) as CompanyResult;
      expect(former.name).not.toBe(current.name);
      expect({ ...former, name: current.name }).toEqual(current);
    }
    const formerNames = new Set(renamed.map((c) => c.name));
    expect(persons.some((p) => p.positions.some((q) => !q.isCurrent && formerNames.has(q.companyName as string)))).toBe(true);
    // Legal forms ("Inc.", "GmbH", "Ltd") on some names, not in the domain or the username.
    const legal = companies.filter((c) => / (Inc\.|LLC|Ltd|GmbH|SAS|B\.V\.|S\.L\.|Pty Ltd|Pvt Ltd|Ltda|Corp\.|Corporation|Limited|AG|SA|PLC)$/.test(c.name as string));
    expect(legal.length).toBeGreaterThan(10);
    for (const c of legal) {
      expect(c.website ?? '').not.toMatch(/inc|gmbh/);
      // Showcase pages take the brand, not the legal form: "Acme Labs", never "Acme Inc. Labs".
      for (const page of c.affiliated_pages ?? []) expect(page.name.startsWith(`${c.name} `)).toBe(false);
    }
    expect(legal.some((c) => (c.affiliated_pages ?? []).length > 0)).toBe(true);
  });

  it('companies with similar names (one stem, another word) exist', () => {
    const byStem = new Map<string, Set<string>>();
    for (const c of companies) byStem.set((c.name as string).split(' ')[0] as string, (byStem.get((c.name as string).split(' ')[0] as string) ?? new Set()).add(c.name as string));
    expect([...byStem.values()].filter((s) => s.size > 1).length).toBeGreaterThan(2);
  });
});
