/**
 * POST /companies/search on a dedicated, seeded world: expectations computed here, in plain JS over
 * the world's company records, from the contract's semantics.
 */
import type { CompanyRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { companyRecord } from '../../helpers/lakeRecords';
import { binary, byId, companyHit, pageOf, useLakeWorld, words, type LakeWorld } from '../../helpers/lakeWorld';

const PATH = '/api/v1/companies/search';

interface Filters {
  query?: string;
  name?: string;
  industry?: string | string[];
  headcount_min?: number;
  headcount_max?: number;
  hq_country?: string | string[];
  hq_city?: string;
  founded_year_min?: number;
  founded_year_max?: number;
  page?: number;
  per_page?: number;
}

const lc = (s: string | null | undefined) => (s == null ? s : s.toLowerCase());
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

/** Query words (AND; `-word` excluded) over name, tagline, description and specialities. */
function queryMatches(c: CompanyRecord, q: string): boolean {
  const tokens = new Set([c.name, c.tagline, c.description, ...(c.specialities ?? [])].flatMap((t) => words(t)));
  return q
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => (w.startsWith('-') ? !words(w.slice(1)).every((x) => tokens.has(x)) : words(w).every((x) => tokens.has(x))));
}

function matches(c: CompanyRecord, f: Filters): boolean {
  if (f.query !== undefined && !queryMatches(c, f.query)) return false;
  if (f.name !== undefined && lc(c.name) !== lc(f.name)) return false;
  const ind = list(f.industry);
  if (ind && !(c.industries ?? []).some((i) => ind.some((v) => lc(v) === lc(i)))) return false;
  const sc = c.staff_count as number | null;
  if (f.headcount_min !== undefined && (sc == null || sc < f.headcount_min)) return false;
  if (f.headcount_max !== undefined && (sc == null || sc > f.headcount_max)) return false;
  const fy = c.founded_year as number | null;
  if (f.founded_year_min !== undefined && (fy == null || fy < f.founded_year_min)) return false;
  if (f.founded_year_max !== undefined && (fy == null || fy > f.founded_year_max)) return false;
  const hq = list(f.hq_country);
  if (hq && !hq.some((v) => lc(v) === lc(c.hq_country_code))) return false;
  if (f.hq_city !== undefined && lc(c.hq_city) !== lc(f.hq_city)) return false;
  return true;
}

/** By id: the order of a search without query (a key the refresh never moves, issue 20). */
const byStaffCount = byId;

const expected = (lw: LakeWorld, f: Filters) => lw.companies.filter((c) => matches(c, f));
const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((r) => r.id);

async function expectFiltered(lw: LakeWorld, f: Filters, atLeast = 1) {
  const want = expected(lw, f).sort(byStaffCount);
  expect(want.length).toBeGreaterThanOrEqual(atLeast);
  const res = await lw.h.post(PATH, { ...f, per_page: 100 }, lw.key);
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(want.length);
  expect(ids(res)).toEqual(want.slice(0, 100).map((c) => c.id));
  return { want, res };
}

async function expectQueried(lw: LakeWorld, f: Filters, atLeast = 1) {
  const want = expected(lw, f);
  expect(want.length).toBeGreaterThanOrEqual(atLeast);
  expect(want.length).toBeLessThanOrEqual(100);
  const res = await lw.h.post(PATH, { ...f, per_page: 100 }, lw.key);
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(want.length);
  expect([...ids(res)].sort()).toEqual(want.map((c) => c.id).sort());
  return res;
}

describe('POST /companies/search on a seeded world', () => {
  const lw = useLakeWorld({ world: { persons: 0, companies: 163, seed: 777 } });
  const post = (body: unknown) => lw.h.post(PATH, body, lw.key);

  it('an empty body lists every company, largest first, ties by id; hits are the stored fields', async () => {
    const res = await post({});
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(lw.companies.length);
    expect(res.body.page).toBe(1);
    expect(res.body.per_page).toBe(25);
    const want = [...lw.companies].sort(byStaffCount);
    expect(ids(res)).toEqual(want.slice(0, 25).map((c) => c.id));
    const byKey = new Map(lw.companies.map((c) => [c.id, c]));
    for (const hit of res.body.results) expect(hit).toEqual(companyHit(byKey.get(hit.id)!));
  });

  it('name: exact, case-insensitive', async () => {
    const c = lw.companies[7]!;
    const { want } = await expectFiltered(lw, { name: c.name.toUpperCase() });
    expect(want.map((x) => x.id)).toContain(c.id);
    expect((await post({ name: c.name.slice(0, -1) })).body.total).toBe(expected(lw, { name: c.name.slice(0, -1) }).length);
  });

  it('industry: any of the record\'s industries equals any value, case-insensitive', async () => {
    await expectFiltered(lw, { industry: 'information technology & services' }, 5);
    await expectFiltered(lw, { industry: ['Banking', 'HOSPITAL & HEALTH CARE'] }, 5);
    expect((await post({ industry: 'Information Technology' })).body.total).toBe(0);
  });

  it('headcount_min / headcount_max: inclusive bounds on staff_count', async () => {
    const sizes = lw.companies.map((c) => c.staff_count as number).filter((n) => n != null).sort((a, b) => a - b);
    const lo = sizes[Math.floor(sizes.length / 4)]!;
    const hi = sizes[Math.floor((3 * sizes.length) / 4)]!;
    await expectFiltered(lw, { headcount_min: lo }, 5);
    await expectFiltered(lw, { headcount_max: hi }, 5);
    const { want } = await expectFiltered(lw, { headcount_min: lo, headcount_max: hi }, 5);
    expect(want.some((c) => c.staff_count === lo)).toBe(true); // inclusive
    expect(want.some((c) => c.staff_count === hi)).toBe(true);
    await expectFiltered(lw, { headcount_min: lo, headcount_max: lo }, 1);
  });

  it('founded_year_min / founded_year_max: inclusive; unknown years never match', async () => {
    await expectFiltered(lw, { founded_year_min: 2015 }, 5);
    await expectFiltered(lw, { founded_year_max: 1999 }, 5);
    const { want } = await expectFiltered(lw, { founded_year_min: 2010, founded_year_max: 2020 }, 5);
    for (const c of want) expect(c.founded_year).not.toBeNull();
    await expectFiltered(lw, { founded_year_min: 2025, founded_year_max: 2025 }, 1);
  });

  it('hq_country: codes, case-insensitive, an array matches any; a country name matches nothing', async () => {
    await expectFiltered(lw, { hq_country: 'us' }, 10);
    await expectFiltered(lw, { hq_country: ['GB', 'de', 'FR'] }, 5);
    expect((await post({ hq_country: 'United States' })).body.total).toBe(0);
    expect((await post({ hq_country: ['Germany'] })).body.total).toBe(0);
  });

  it('hq_city: exact, case-insensitive', async () => {
    const city = lw.companies.find((c) => c.hq_country_code === 'US')!.hq_city!;
    await expectFiltered(lw, { hq_city: city.toUpperCase() }, 1);
  });

  it('query: words over name, tagline, description and specialities (AND, -word)', async () => {
    await expectQueried(lw, { query: 'cloud' }, 3);
    await expectQueried(lw, { query: 'Systems' }, 3);
    await expectQueried(lw, { query: 'wealth management' }, 1);
    await expectQueried(lw, { query: 'management -wealth' }, 3);
    expect((await post({ query: 'qqzzxxnope' })).body.total).toBe(0);
  });

  it('combinations', async () => {
    await expectFiltered(lw, { hq_country: 'US', headcount_min: 50 }, 3);
    await expectFiltered(lw, { industry: ['Computer Software', 'Information Technology & Services'], founded_year_min: 2000, hq_country: ['US', 'GB', 'IN'] }, 1);
    await expectQueried(lw, { query: 'management', hq_country: 'US', headcount_max: 400 }, 1);
  });

  it('pagination: consecutive pages, partial last page, past the end, per_page 1 and 100', async () => {
    const want = [...lw.companies].sort(byStaffCount);
    expect(want.length % 25).not.toBe(0);
    const seen: string[] = [];
    for (let page = 1; page <= Math.ceil(want.length / 25); page++) {
      const res = await post({ page });
      expect(res.body.page).toBe(page);
      expect(ids(res)).toEqual(pageOf(want, page, 25).map((c) => c.id));
      seen.push(...ids(res));
    }
    expect(seen).toEqual(want.map((c) => c.id));
    const past = await post({ page: Math.ceil(want.length / 25) + 1 });
    expect(past.body.results).toEqual([]);
    expect(past.body.total).toBe(want.length);
    expect(ids(await post({ per_page: 1, page: want.length }))).toEqual([want[want.length - 1]!.id]);
    const hundred = await post({ per_page: 100, page: 2 });
    expect(ids(hundred)).toEqual(pageOf(want, 2, 100).map((c) => c.id));
  });

  describe('400 VALIDATION_ERROR', () => {
    it.each([
      ['an unknown field', { location: 'US' }],
      ['headcount_min above headcount_max', { headcount_min: 500, headcount_max: 100 }],
      ['founded_year_min above founded_year_max', { founded_year_min: 2020, founded_year_max: 2010 }],
      ['a negative headcount', { headcount_min: -1 }],
      ['a headcount as a string', { headcount_min: '50' }],
      ['a year out of range', { founded_year_min: 999 }],
      ['an empty name', { name: '' }],
      ['an empty industry array', { industry: [] }],
      ['per_page 101', { per_page: 101 }],
      ['page 0', { page: 0 }],
    ])('%s', async (_name, body) => {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('min equal to max is fine', async () => {
      expect((await post({ headcount_min: 100, headcount_max: 100 })).status).toBe(200);
      expect((await post({ founded_year_min: 2010, founded_year_max: 2010 })).status).toBe(200);
    });

    it('names the offending field', async () => {
      expect((await post({ headcount_min: 500, headcount_max: 100 })).body.error).toMatch(/headcount_m(in|ax)/);
    });
  });

  it('a withdrawn company disappears from search', async () => {
    const gone = [...lw.companies].sort(byStaffCount)[0]!;
    const before = (await post({})).body.total;
    await suppress(lw.h.knex, 'company', { by: 'id', value: gone.id });
    lw.companies.splice(lw.companies.indexOf(gone), 1);
    const res = await post({ per_page: 100 });
    expect(res.body.total).toBe(before - 1);
    expect(ids(res)).not.toContain(gone.id);
    expect((await post({ name: gone.name })).body.results.map((r: { id: string }) => r.id)).not.toContain(gone.id);
  });
});

describe('POST /companies/search: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const post = (body: unknown) => lw.h.post(PATH, body, lw.key);
  const mk = (over: Partial<CompanyRecord>) =>
    companyRecord({ tagline: 'Plain tagline', description: 'Plain description.', specialities: ['Plain'], ...over });
  const unknownSize = mk({ name: 'Nullsize Corp', staff_count: null as unknown as number, founded_year: 2001 });
  const unknownYear = mk({ name: 'Noyear Corp', staff_count: 40, founded_year: null as unknown as number });
  const big = mk({ name: 'Big Corp', staff_count: 900, founded_year: 1990 });
  const tieA = mk({ name: 'Tie Corp A', staff_count: 40, founded_year: 2010 });
  const tieB = mk({ name: 'Tie Corp B', staff_count: 40, founded_year: 2010 });
  // Relevance: a rare word in the name, in the tagline, in the specialities.
  const inName = mk({ name: 'Quokkaworks', staff_count: 1 });
  const inTagline = mk({ name: 'Alpha Ltd', tagline: 'We love quokkaworks', staff_count: 1000 });
  const inSpecialities = mk({ name: 'Beta Ltd', specialities: ['Quokkaworks'], staff_count: 2000 });
  const all = [unknownSize, unknownYear, big, tieA, tieB, inName, inTagline, inSpecialities];
  beforeAll(() => lw.addCompanies(...all));

  it('without query: by id, whatever the headcount (a key the refresh never moves)', async () => {
    const res = await post({ per_page: 100 });
    expect(ids(res)).toEqual([...all].sort(byStaffCount).map((c) => c.id));
  });

  it('unknown staff_count never matches a headcount bound; unknown year never matches a year bound', async () => {
    expect(ids(await post({ headcount_min: 0 }))).not.toContain(unknownSize.id);
    expect(ids(await post({ headcount_max: 10_000_000 }))).not.toContain(unknownSize.id);
    expect(ids(await post({ founded_year_min: 1000 }))).not.toContain(unknownYear.id);
    expect(ids(await post({ founded_year_max: 2100 }))).not.toContain(unknownYear.id);
    expect((await post({ headcount_min: 0 })).body.total).toBe(all.length - 1);
  });

  it('query: the name weighs most (relevance before staff_count)', async () => {
    const res = await post({ query: 'QUOKKAWORKS' });
    expect(res.body.total).toBe(3);
    expect(ids(res)[0]).toBe(inName.id);
    expect(ids(res).sort()).toEqual([inName, inTagline, inSpecialities].map((c) => c.id).sort());
  });
});
