/** The labelled match queries (src/world/matchQueries.ts): seeded, labelled from the generator's truth, mixable. */
import { createWorld, type PersonResult } from '../../../src/world';
import {
  COMPANY_NOISE, DEFAULT_PERSON_MIX, PERSON_NOISE, companyNameKey, generateCompanyMatchQueries, generateMatchQueries, nameKey, normalizedName, parseMix, typo, withoutLegalForm,
} from '../../../src/world/matchQueries';
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
