/** The labelled match queries (src/world/matchQueries.ts): seeded, labelled from the generator's truth, mixable. */
import { createWorld, type PersonResult } from '../../../src/world';
import {
  COMPANY_NOISE, DEFAULT_PERSON_MIX, PERSON_NOISE, companyNameKey, generateCompanyMatchQueries, generateMatchQueries, labelAmbiguousPersons, nameFit, nameKey,
  normalizedName, parseMix, relatedNameKeys, rivalKey, rivalOf, stripAccents, typo, withoutLegalForm, type RivalPerson,
} from '../../../src/world/matchQueries';
import { FORMAL_OF } from '../../../src/world/names';
import { Rng } from '../../../src/world/random';

const asOf = new Date('2026-11-01T00:00:00Z');
const world = createWorld({ persons: 3000, companies: 150, seed: 2026, asOf });
const loaded = 2700;
const persons: PersonResult[] = [...world.personRecords()];
const byId = new Map(persons.map((p, i) => [p.id, { p, i }]));
const lakeNames = new Set(persons.slice(0, loaded).map((p) => nameKey(p.first_name as string, p.last_name as string)));
const queries = generateMatchQueries(world, { seed: 7, count: 1500, loadedPersons: loaded, isTakenName: (n) => lakeNames.has(n) });

describe('generateMatchQueries', () => {
  it('is reproducible for a seed and differs for another', () => {
    expect(generateMatchQueries(world, { seed: 7, count: 1500, loadedPersons: loaded, isTakenName: (n) => lakeNames.has(n) })).toEqual(queries);
    expect(generateMatchQueries(world, { seed: 8, count: 1500, loadedPersons: loaded })).not.toEqual(queries);
  });

  it('gives every class of the default mix its share, and a mix only the classes it names', () => {
    const counts = new Map<string, number>();
    for (const q of queries) counts.set(q.noise, (counts.get(q.noise) ?? 0) + 1);
    const total = Object.values(DEFAULT_PERSON_MIX).reduce((a, b) => a + b, 0);
    // Largest remainders: each class within one of its exact share, and the count exact.
    for (const [noise, w] of Object.entries(DEFAULT_PERSON_MIX)) {
      expect([noise, Math.abs((counts.get(noise) ?? 0) - (1500 * w) / total) < 1]).toEqual([noise, true]);
    }
    expect(queries).toHaveLength(1500);
    const mixed = generateMatchQueries(world, { seed: 7, count: 300, loadedPersons: loaded, mix: parseMix('typo=2,absent=1', Object.keys(PERSON_NOISE)) });
    expect(mixed.filter((q) => q.noise === 'typo')).toHaveLength(200);
    expect(mixed.filter((q) => q.noise === 'absent')).toHaveLength(100);
    expect(() => parseMix('typos=1', Object.keys(PERSON_NOISE))).toThrow(/unknown noise class "typos"/);
    expect(() => parseMix('typo=-1', Object.keys(PERSON_NOISE))).toThrow(/>= 0/);
  });

  it('labels each query with the loaded record it was made from, or null for someone the lake does not hold', () => {
    for (const { query, expectedId, noise } of queries) {
      const group = PERSON_NOISE[noise as keyof typeof PERSON_NOISE];
      if (group === 'absent') {
        expect(expectedId).toBeNull();
        // Nobody in the lake wears the name, nickname and middle name aside.
        if (query.first_name !== undefined) expect(lakeNames.has(nameKey(query.first_name, query.last_name as string))).toBe(false);
        // Nor a name a nickname makes one with (Alex and a stored Alexandra: nameKey folds Alex to Alexander).
        if (query.first_name !== undefined) expect([...relatedNameKeys(query.first_name, query.last_name as string)].filter((k) => lakeNames.has(k))).toEqual([]);
        else if (query.name !== undefined) expect(lakeNames.has(nameKey(query.name.split(' ')[0] as string, query.name.split(' ').slice(1).join(' ')))).toBe(false);
        continue;
      }
      const hit = byId.get(expectedId as string);
      expect(hit).toBeDefined();
      expect(hit!.i).toBeLessThan(loaded);
      const p = hit!.p;
      if (group === 'email') expect(query).toEqual({ email: expect.stringMatching(/^[a-z0-9._]+@[a-z0-9.-]+$/) });
      else expect(query.name ?? query.last_name).toBeTruthy();
      if (noise === 'exact') expect([query.name ?? `${query.first_name} ${query.last_name}`, query.company]).toEqual([p.full_name, p.current_company]);
      if (noise === 'previous_employer') expect(p.positions.slice(1).map((q) => q.companyName)).toContain(query.company);
      if (noise === 'former_company') expect(world.formerCompany(world.companyIndexOf({ companyId: p.current_company_id as string })!)?.name).toBe(query.company);
      if (noise === 'ambiguous_namesake') expect(world.isNamesake(hit!.i)).toBe(true);
      if (noise === 'location_city') expect(query.location).toContain(p.geo_city);
      if (noise === 'school') expect(p.education_schools).toContain(query.school);
      if (noise === 'case_accents') expect(normalizedName(query.name ?? `${query.first_name} ${query.last_name}`)).toBe(normalizedName(p.full_name as string));
    }
  });

  it('one typo is one edit away, and legal forms come off', () => {
    const rng = new Rng();
    rng.reset(1, 1);
    for (let k = 0; k < 200; k++) {
      const t = typo(rng, 'Robertson');
      expect(t.charAt(0)).toBe('R');
      expect(Math.abs(t.length - 9)).toBeLessThanOrEqual(1);
    }
    expect(withoutLegalForm('Acme Software Inc.')).toBe('Acme Software');
    expect(withoutLegalForm('Müller GmbH & Co. KG')).toBe('Müller');
    expect(nameKey('Bob M.', 'Smith')).toBe(nameKey('Robert', 'Smith'));
    expect(nameKey('José', 'Núñez')).toBe('jose nunez');
    expect(relatedNameKeys('Alex', 'Smith')).toEqual(new Set(['alexander smith', 'alexandra smith', 'alejandro smith']));
    expect(relatedNameKeys('Alexandra', 'Smith')).toContain(nameKey('Alex', 'Smith'));
    // A formal name spelled a letter apart: a stored Abby fits an Abbigail.
    expect(relatedNameKeys('Abbigail', 'Luettgen')).toContain(nameKey('Abby', 'Luettgen'));
    expect(relatedNameKeys('Abbigail', 'Luettgen')).not.toContain(nameKey('Alex', 'Luettgen'));
  });
});

describe('labelAmbiguousPersons', () => {
  it('grades a name as asked against a profile: exact, a middle name on one side, a conflicting one, a nickname, another name', () => {
    expect(nameFit('josé', 'NUÑEZ', 'José', 'Núñez')).toBe(4);
    expect(nameFit('John', 'Smith', 'John A.', 'Smith')).toBe(3);
    expect(nameFit('John B.', 'Smith', 'John Andrew', 'Smith')).toBe(2);
    expect(nameFit('John A.', 'Smith', 'John Andrew', 'Smith')).toBe(3);
    expect(nameFit('David', 'Brown', 'Dave', 'Brown')).toBe(1);
    expect(nameFit('Jon', 'Smith', 'John', 'Smith')).toBe(0);
    expect(nameFit('John', 'Smith', 'John', 'Smyth')).toBe(0);
  });

  it('calls a query ambiguous when another loaded person fits it as well (recounted here from the records), and only then', () => {
    // 4,000 persons at 40 companies: 100 a company, so chance namesakes (common names) occur.
    const small = createWorld({ persons: 4000, companies: 40, seed: 9, asOf });
    const all = [...small.personRecords()];
    const inLake = all.slice(0, 3920);
    const byKey = new Map<string, RivalPerson[]>();
    for (const p of inLake) {
      const key = rivalKey(p.last_name as string);
      byKey.set(key, [...(byKey.get(key) ?? []), rivalOf(p)]);
    }
    const taken = new Set(inLake.map((p) => nameKey(p.first_name as string, p.last_name as string)));
    const made = generateMatchQueries(small, { seed: 3, count: 1500, loadedPersons: 3920, isTakenName: (n) => taken.has(n) });
    const labelled = labelAmbiguousPersons(small, made, (key) => byKey.get(key) ?? []);
    expect(labelled.map((q) => q.madeAs ?? q.noise)).toEqual(made.map((q) => q.noise));
    const companies = [...small.companyRecords()].map((c, i) => ({ id: c.company_id as string, name: companyNameKey(c.name as string), former: small.formerCompany(i) ? companyNameKey(small.formerCompany(i)!.name as string) : null }));
    const fold = (x: string | null | undefined) => stripAccents(x ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
    const first = (full: string) => full.split(' ')[0]!;
    const middleOf = (firstName: string) => fold(firstName.split(' ').slice(1).join(' ')).charAt(0);
    const related = (a: string, b: string) => {
      const forms = (x: string) => [fold(x), ...(FORMAL_OF.get(normalizedName(x)) ?? []).map(fold)];
      return forms(a).some((f) => forms(b).includes(f));
    };
    let ambiguous = 0;
    for (const q of labelled) {
      const noise = q.madeAs ?? q.noise;
      if (q.index === undefined || noise === 'ambiguous_namesake') {
        expect(q.noise).not.toBe('ambiguous_rival');
        continue;
      }
      const p = all[q.index]!;
      const pGiven = first(p.first_name as string);
      const sameLast = (r: (typeof all)[number]) => fold(r.last_name) === fold(p.last_name);
      const sameGiven = (r: (typeof all)[number]) => fold(first(r.first_name as string)) === fold(pGiven);
      // The name test, class by class.
      let fits: (r: (typeof all)[number]) => boolean;
      const askedFirst = q.query.first_name ?? (q.query.name ?? '').split(' ').slice(0, -(p.last_name as string).split(' ').length).join(' ');
      if (noise === 'typo' || noise === 'swapped_name') fits = (r) => sameLast(r) && sameGiven(r) && (!middleOf(r.first_name as string) || middleOf(p.first_name as string) !== '');
      else if (noise === 'nickname') fits = (r) => sameLast(r) && related(first(r.first_name as string), askedFirst);
      else if (noise === 'middle_name') {
        const asked = middleOf(askedFirst);
        fits = (r) => sameLast(r) && sameGiven(r) && (!asked || !middleOf(r.first_name as string) || middleOf(r.first_name as string) === asked);
      } else if (noise === 'email_first_last') fits = (r) => sameLast(r) && sameGiven(r);
      else if (noise === 'email_initial_last') fits = (r) => sameLast(r) && fold(r.first_name).charAt(0) === fold(pGiven).charAt(0);
      else fits = (r) => fold(r.full_name) === fold(p.full_name) && normalizedName(r.full_name as string) === normalizedName(p.full_name as string);
      // Where: the companies the query's company names (now; before too for a former or past employer), the city, the school.
      let where: (r: (typeof all)[number]) => boolean;
      if (noise === 'location_city') where = (r) => fold(r.geo_city) === fold(p.geo_city) && (!(q.query.location ?? '').includes(',') || r.geo_country_code === p.geo_country_code);
      else if (noise === 'school') where = (r) => r.education_schools.map(fold).includes(fold(q.query.school));
      else if (q.query.company !== undefined) {
        const names = new Set([companyNameKey(q.query.company)]);
        if (noise !== 'previous_employer') names.add(companyNameKey(p.current_company as string));
        const before = noise === 'former_company' || noise === 'previous_employer';
        const ids = new Set(companies.filter((c) => names.has(c.name) || (before && c.former !== null && names.has(c.former))).map((c) => c.id));
        where = (r) => ids.has(r.current_company_id as string) || (noise === 'previous_employer' && r.positions.some((x) => !x.isCurrent && ids.has(x.companyId as string)));
      } else where = (r) => r.current_company_id === p.current_company_id;
      const title = noise === 'title_variant' ? normalizedName(p.current_title ?? '') : undefined;
      const rivals = inLake.filter((r) => r.id !== p.id && where(r) && fits(r) && (title === undefined || normalizedName(r.current_title ?? '') === title));
      if (rivals.length) ambiguous++;
      expect([noise, q.query, p.full_name, rivals.length > 0]).toEqual([noise, q.query, p.full_name, q.noise === 'ambiguous_rival']);
    }
    expect(ambiguous).toBeGreaterThan(5);
  });
});

describe('generateCompanyMatchQueries', () => {
  it('labels companies, made-up ones null, former names from the renames', () => {
    const qs = generateCompanyMatchQueries(world, { seed: 3, count: 400 });
    // Every class drawn; ambiguous_name is not drawn but labelled (a name another company wears too).
    expect(new Set(qs.map((q) => q.noise).filter((n) => n !== 'ambiguous_name'))).toEqual(new Set(Object.keys(COMPANY_NOISE).filter((n) => n !== 'ambiguous_name')));
    const companies = new Map([...world.companyRecords()].map((c, i) => [c.id, i]));
    for (const q of qs) {
      if (q.noise === 'absent') expect(q.expectedId).toBeNull();
      else expect(companies.has(q.expectedId as string)).toBe(true);
      if (q.noise === 'former_name') expect(world.formerCompany(companies.get(q.expectedId as string)!)?.name).toBe(q.query.name);
    }
  });

  it('labels a name query that another company fits as well ambiguous_name, and only those', () => {
    // 2,000 companies: names recur (a surname and an industry word), domains never.
    const big = createWorld({ persons: 6000, companies: 2000, seed: 5, asOf });
    const records = [...big.companyRecords()];
    const index = new Map(records.map((c, i) => [c.id, i]));
    const keys = records.map((c, i) => ({
      name: companyNameKey(c.name as string),
      former: big.formerCompany(i) === undefined ? null : companyNameKey(big.formerCompany(i)!.name as string),
      city: c.hq_city,
    }));
    const rivalsOf = (key: string, self: number, city?: string | null) =>
      keys.filter((k, i) => i !== self && ((k.name === key && (city === undefined || k.city === city)) || (city === undefined && k.former === key))).length;
    const qs = generateCompanyMatchQueries(big, { seed: 4, count: 1200 });
    const ambiguous = qs.filter((q) => q.noise === 'ambiguous_name');
    expect(ambiguous.length).toBeGreaterThan(5);
    expect(qs.length - ambiguous.length).toBeGreaterThan(ambiguous.length);
    for (const q of qs) {
      const group = COMPANY_NOISE[q.noise as keyof typeof COMPANY_NOISE];
      if (group !== 'name' && q.noise !== 'ambiguous_name') continue;
      const i = index.get(q.expectedId as string)!;
      const own = records[i]!;
      const asked = companyNameKey(q.query.name as string);
      const city = q.query.location !== undefined ? own.hq_city : undefined;
      // A rival: another company named as asked (or as this one), in the same city when one is asked.
      // A query by the former name speaks of that name only.
      const ownKey = keys[i]!.name;
      const byFormer = asked === keys[i]!.former && asked !== ownKey;
      const rivals = rivalsOf(asked, i, city) + (asked === ownKey || byFormer ? 0 : rivalsOf(ownKey, i, city));
      expect([q.noise, q.query, rivals > 0]).toEqual([q.noise, q.query, q.noise === 'ambiguous_name']);
    }
  });
});
