/**
 * POST /people/search on a dedicated, seeded world: every expectation is computed here, in plain JS
 * over the world's records, from the contract's semantics (never by the code under test).
 */
import type { PersonRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { personRecord } from '../../helpers/lakeRecords';
import {
  SHARED_WORLD, byId, pageOf, personHit, sameCompanyId, useLakeWorld, words, type LakeWorld,
} from '../../helpers/lakeWorld';

const PATH = '/api/v1/people/search';

interface Filters {
  query?: string;
  title?: string;
  company?: string;
  company_id?: string;
  location?: string | string[];
  city?: string;
  industry?: string | string[];
  seniority?: string | string[];
  skills?: string[];
  school?: string;
  past_company?: string;
  past_company_id?: string;
  page?: number;
  per_page?: number;
}

const lc = (s: string | null | undefined) => (s == null ? s : s.toLowerCase());
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

// ---- The oracle: websearch syntax (words AND, "phrases", `or`, -negation) over name+title+company.
type Term = { neg: boolean; phrase: string[] };
function parseQuery(q: string): Term[][] {
  const raw = q.match(/-?"[^"]*"|\S+/g) ?? [];
  const groups: Term[][] = [];
  let orNext = false;
  for (const token of raw) {
    if (token.toLowerCase() === 'or') {
      orNext = groups.length > 0;
      continue;
    }
    const neg = token.startsWith('-');
    const body = neg ? token.slice(1) : token;
    const term: Term = { neg, phrase: words(body.replace(/"/g, ' ')) };
    if (!term.phrase.length) continue;
    if (orNext) groups[groups.length - 1]!.push(term);
    else groups.push([term]);
    orNext = false;
  }
  return groups;
}
function hasPhrase(tokens: string[], phrase: string[]): boolean {
  for (let i = 0; i + phrase.length <= tokens.length; i++) if (phrase.every((w, k) => tokens[i + k] === w)) return true;
  return false;
}
function queryMatches(p: PersonRecord, q: string): boolean {
  const tokens = [...words(p.full_name), ...words(p.current_title), ...words(p.current_company)];
  return parseQuery(q).every((group) => group.some((t) => hasPhrase(tokens, t.phrase) !== t.neg));
}

function matches(p: PersonRecord, f: Filters): boolean {
  if (f.query !== undefined && !queryMatches(p, f.query)) return false;
  if (f.title !== undefined) {
    const titleWords = new Set(words(p.current_title));
    if (!f.title.split(/\s+/).filter(Boolean).some((w) => titleWords.has(w.toLowerCase()))) return false;
  }
  if (f.company_id !== undefined) {
    if (!sameCompanyId(p.current_company_id, f.company_id)) return false;
  } else if (f.company !== undefined && lc(p.current_company) !== lc(f.company)) return false;
  const loc = list(f.location);
  if (loc && !loc.some((c) => lc(c) === lc(p.geo_country_code))) return false;
  if (f.city !== undefined && lc(p.geo_city) !== lc(f.city)) return false;
  const ind = list(f.industry);
  if (ind && !ind.some((i) => lc(i) === lc(p.current_company_industry))) return false;
  const sen = list(f.seniority);
  if (sen && (p.seniority == null || !sen.includes(p.seniority))) return false;
  if (f.skills && !f.skills.every((s) => p.skills.some((k) => lc(k.name) === lc(s)))) return false;
  if (f.school !== undefined && !p.educations.some((e) => lc(e.schoolName) === lc(f.school))) return false;
  if (f.past_company_id !== undefined) {
    if (!p.positions.some((x) => !x.isCurrent && sameCompanyId(x.companyId, f.past_company_id))) return false;
  } else if (f.past_company !== undefined && !p.positions.some((x) => !x.isCurrent && lc(x.companyName) === lc(f.past_company))) {
    return false;
  }
  return true;
}

const expected = (lw: LakeWorld, f: Filters) => lw.persons.filter((p) => matches(p, f));

async function search(lw: LakeWorld, body: unknown) {
  return lw.h.post(PATH, body, lw.key);
}

/** Every page of a search at per_page 100, checked for consistent totals and no repeats. */
async function searchAll(lw: LakeWorld, f: Filters): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = -1;
  for (let page = 1; page <= 40; page++) {
    const res = await search(lw, { ...f, page, per_page: 100 });
    expect(res.status).toBe(200);
    if (total === -1) total = res.body.total;
    expect(res.body.total).toBe(total);
    ids.push(...res.body.results.map((r: { id: string }) => r.id));
    if (res.body.results.length < 100) break;
  }
  expect(new Set(ids).size).toBe(ids.length);
  return { ids, total };
}

/** Without `query`: the exact order (id) of the first page of 100, and the total. */
async function expectFiltered(lw: LakeWorld, f: Filters, opts: { atLeast?: number } = {}) {
  const want = expected(lw, f).sort(byId);
  expect(want.length).toBeGreaterThanOrEqual(opts.atLeast ?? 1);
  const res = await search(lw, { ...f, per_page: 100 });
  expect(res.status).toBe(200);
  expect(res.body.total).toBe(want.length);
  expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(want.slice(0, 100).map((p) => p.id));
  return { want, res };
}

/** With `query` (relevance order): the same set over all pages, and the total. */
async function expectQueried(lw: LakeWorld, f: Filters, opts: { atLeast?: number } = {}) {
  const want = expected(lw, f);
  expect(want.length).toBeGreaterThanOrEqual(opts.atLeast ?? 1);
  const got = await searchAll(lw, f);
  expect(got.total).toBe(want.length);
  expect([...got.ids].sort()).toEqual(want.map((p) => p.id).sort());
}

describe('POST /people/search on a seeded world', () => {
  const lw = useLakeWorld({ world: SHARED_WORLD });

  /** The world's largest employer, and a mid-size one. */
  const employers = () => {
    const counts = new Map<string, { id: string; name: string; n: number }>();
    for (const p of lw.persons) {
      const c = counts.get(p.current_company_id!) ?? { id: p.current_company_id!, name: p.current_company!, n: 0 };
      c.n++;
      counts.set(c.id, c);
    }
    return [...counts.values()].sort((a, b) => b.n - a.n);
  };

  /** The school most persons attended (the world is SHARED_WORLD: names come from the records). */
  const largestSchool = () => {
    const n = new Map<string, number>();
    for (const p of lw.persons) for (const name of new Set(p.educations.map((e) => e.schoolName))) n.set(name, (n.get(name) ?? 0) + 1);
    return [...n.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  };

  describe('no filter', () => {
    it('an empty body lists every person, most recently verified first, ties by id', async () => {
      const res = await search(lw, {});
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(lw.persons.length);
      expect(res.body.page).toBe(1);
      expect(res.body.per_page).toBe(25);
      const want = [...lw.persons].sort(byId);
      expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(want.slice(0, 25).map((p) => p.id));
    });

    it('hits are the lightweight fields of the stored records, exactly', async () => {
      const res = await search(lw, { per_page: 100, page: 3 });
      const byIdMap = new Map(lw.persons.map((p) => [p.id, p]));
      expect(res.body.results).toHaveLength(100);
      for (const hit of res.body.results) expect(hit).toEqual(personHit(byIdMap.get(hit.id)!));
    });
  });

  describe('each filter alone', () => {
    it('title: one word, whole words of the title, case-insensitive', async () => {
      await expectFiltered(lw, { title: 'Engineering' }, { atLeast: 5 });
      await expectFiltered(lw, { title: 'director' }, { atLeast: 5 });
    });

    it('title: "Engineer" is a word of its own, it does not match "Engineering"', async () => {
      const { want, res } = await expectFiltered(lw, { title: 'engineer' }, { atLeast: 1 });
      for (const p of want) expect(words(p.current_title)).toContain('engineer');
      for (const hit of res.body.results) expect(words(hit.current_title)).toContain('engineer');
    });

    it('title: several words match any of them (OR)', async () => {
      const { want } = await expectFiltered(lw, { title: 'CTO   cfo' }, { atLeast: 1 });
      const single = expected(lw, { title: 'cto' }).length + expected(lw, { title: 'cfo' }).length;
      expect(want.length).toBeLessThanOrEqual(single);
      await expectFiltered(lw, { title: 'president counsel' });
    });

    it('company: current employer name, case-insensitive', async () => {
      const [, second] = employers();
      await expectFiltered(lw, { company: second!.name.toUpperCase() }, { atLeast: 20 });
      await expectFiltered(lw, { company: second!.name.toLowerCase() }, { atLeast: 20 });
    });

    it('company_id: numeric equality, leading zeros ignored', async () => {
      const [first] = employers();
      const { want } = await expectFiltered(lw, { company_id: first!.id }, { atLeast: 100 });
      expect(want).toHaveLength(first!.n);
      const padded = await search(lw, { company_id: `000${first!.id}` });
      expect(padded.body.total).toBe(first!.n);
      expect((await search(lw, { company_id: '999999999999' })).body.total).toBe(0);
    });

    it('location: ISO codes, case-insensitive; an array matches any', async () => {
      await expectFiltered(lw, { location: 'us' }, { atLeast: 500 });
      await expectFiltered(lw, { location: ['IE', 'sg'] }, { atLeast: 20 });
    });

    it('location: a full country name matches nothing', async () => {
      for (const location of ['Germany', ['United States'], 'United States']) {
        const res = await search(lw, { location });
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(0);
        expect(res.body.results).toEqual([]);
      }
      // A name next to a code still matches the code's people.
      await expectFiltered(lw, { location: ['Germany', 'DE'] }, { atLeast: 10 });
    });

    it('city: exact, case-insensitive', async () => {
      await expectFiltered(lw, { city: 'LOS ANGELES' }, { atLeast: 20 });
      expect((await search(lw, { city: 'Los' })).body.total).toBe(0);
    });

    it('industry: case-insensitive, an array matches any; unknown matches nothing', async () => {
      await expectFiltered(lw, { industry: 'real estate' }, { atLeast: 100 });
      await expectFiltered(lw, { industry: ['Banking', 'INSURANCE', 'Pharmaceuticals'] }, { atLeast: 20 });
      expect((await search(lw, { industry: 'Basket Weaving' })).body.total).toBe(0);
    });

    it('seniority: one band or any of several', async () => {
      await expectFiltered(lw, { seniority: 'vp' }, { atLeast: 10 });
      await expectFiltered(lw, { seniority: ['c-level', 'director'] }, { atLeast: 20 });
      const all = await search(lw, { seniority: ['c-level', 'vp', 'director', 'manager'] });
      expect(all.body.total).toBe(lw.persons.filter((p) => p.seniority != null).length);
    });

    it('skills: the person lists every given skill, case-insensitive', async () => {
      await expectFiltered(lw, { skills: ['project management'] }, { atLeast: 50 });
      const { want } = await expectFiltered(lw, { skills: ['PROJECT MANAGEMENT', 'Negotiation'] }, { atLeast: 5 });
      expect(want.length).toBeLessThan(expected(lw, { skills: ['Negotiation'] }).length);
      expect((await search(lw, { skills: ['Project Management', 'Underwater Welding'] })).body.total).toBe(0);
    });

    it('school: some education has that school name, case-insensitive', async () => {
      const school = lw.persons[0]!.educations[0]!.schoolName;
      await expectFiltered(lw, { school }, { atLeast: 1 });
      const big = largestSchool();
      await expectFiltered(lw, { school: big.toUpperCase() }, { atLeast: 50 });
      // One word of the name (it was 'Lueilwitz' of 'Lueilwitz University' in the world of seed 4242).
      const word = big.split(' ').sort((a, b) => b.length - a.length)[0]!;
      expect(expected(lw, { school: word })).toHaveLength(0);
      expect((await search(lw, { school: word })).body.total).toBe(0);
    });

    it('school: exact, so surrounding spaces are part of the name (no match)', async () => {
      const big = largestSchool();
      expect(expected(lw, { school: `${big} ` })).toHaveLength(0);
      expect((await search(lw, { school: `${big} ` })).body.total).toBe(0);
    });

    it('past_company_id: an ended position at that company', async () => {
      const [first] = employers();
      await expectFiltered(lw, { past_company_id: first!.id }, { atLeast: 20 });
      await expectFiltered(lw, { past_company_id: `00${first!.id}` }, { atLeast: 20 });
    });

    it('past_company: an ended position at an employer of that name, case-insensitive', async () => {
      const [, second] = employers();
      await expectFiltered(lw, { past_company: second!.name.toLowerCase() }, { atLeast: 10 });
    });

    it('query: one word, over name, title and company', async () => {
      await expectQueried(lw, { query: 'director' }, { atLeast: 20 });
      const [, second] = employers();
      const companyWord = words(second!.name).find((w) => /^[a-z]+$/.test(w))!;
      await expectQueried(lw, { query: companyWord.toUpperCase() }, { atLeast: 20 });
      const name = lw.persons.find((p) => /^[A-Za-z]+ [A-Za-z]+$/.test(p.full_name))!.full_name;
      await expectQueried(lw, { query: name }, { atLeast: 1 });
    });

    it('query: every word must occur (AND), words may come from different fields', async () => {
      await expectQueried(lw, { query: 'director engineering' }, { atLeast: 1 });
      const p = lw.persons.find((x) => x.seniority === 'manager' && /^[A-Za-z]+$/.test(x.last_name ?? ''))!;
      await expectQueried(lw, { query: `manager ${p.last_name}` }, { atLeast: 1 });
    });

    it('query: websearch syntax ("phrase", or, -word)', async () => {
      await expectQueried(lw, { query: '"vice president"' }, { atLeast: 5 });
      await expectQueried(lw, { query: 'ceo or cto' }, { atLeast: 2 });
      await expectQueried(lw, { query: 'vice or president -senior' }, { atLeast: 2 });
      await expectQueried(lw, { query: 'director -engineering' }, { atLeast: 5 });
      expect((await search(lw, { query: 'zzqqxxnotaword' })).body.total).toBe(0);
    });
  });

  describe('combinations (AND across filters)', () => {
    it('title + location', async () => {
      await expectFiltered(lw, { title: 'manager', location: 'US' }, { atLeast: 10 });
      await expectFiltered(lw, { title: 'director vice', location: ['gb', 'FR', 'es'] }, { atLeast: 1 });
    });

    it('industry array + seniority', async () => {
      await expectFiltered(
        lw,
        { industry: ['Real Estate', 'financial services'], seniority: ['manager', 'director'] },
        { atLeast: 20 },
      );
    });

    it('query + filters', async () => {
      await expectQueried(lw, { query: 'manager', location: 'US', industry: 'Real Estate' }, { atLeast: 1 });
      await expectQueried(lw, { query: 'director', seniority: 'director', city: 'boston' }, { atLeast: 0 });
    });

    it('company_id wins over company; company alone is used without it', async () => {
      const [first, second] = employers();
      const both = await search(lw, { company: second!.name, company_id: first!.id, per_page: 100 });
      expect(both.body.total).toBe(first!.n);
      for (const hit of both.body.results) expect(hit.current_company_id).toBe(first!.id);
      await expectFiltered(lw, { company: second!.name, company_id: first!.id }, { atLeast: 100 });
      // A company name that matches nobody does not empty a company_id search.
      expect((await search(lw, { company: 'No Such Company', company_id: first!.id })).body.total).toBe(first!.n);
    });

    it('past_company_id wins over past_company', async () => {
      const [first, second] = employers();
      const want = expected(lw, { past_company_id: first!.id });
      const res = await search(lw, { past_company: second!.name, past_company_id: first!.id, per_page: 100 });
      expect(res.body.total).toBe(want.length);
      expect((await search(lw, { past_company: 'No Such Company', past_company_id: first!.id })).body.total).toBe(want.length);
    });

    it('many filters at once', async () => {
      const [first] = employers();
      await expectFiltered(lw, { company_id: first!.id, seniority: ['manager', 'director', 'vp', 'c-level'], location: 'US' }, { atLeast: 0 });
      await expectFiltered(lw, { industry: 'Information Technology & Services', skills: ['Negotiation'], location: ['US', 'IN'] }, { atLeast: 1 });
    });
  });

  describe('pagination', () => {
    // A filter whose total is not a multiple of 25 (so the last page is partial).
    const candidates: Filters[] = [
      { seniority: ['vp', 'c-level'] }, { seniority: ['vp', 'c-level', 'director'] }, { seniority: 'director' },
      { seniority: 'manager' }, { location: 'ES' },
    ];
    let f: Filters = {};
    beforeAll(() => {
      f = candidates.find((c) => expected(lw, c).length % 25 !== 0 && expected(lw, c).length > 50)!;
    });

    it('consecutive pages neither overlap nor skip, and the last page is partial', async () => {
      const want = expected(lw, f).sort(byId);
      expect(want.length % 25).not.toBe(0);
      const pages = Math.ceil(want.length / 25);
      const seen: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const res = await search(lw, { ...f, page });
        expect(res.body.page).toBe(page);
        expect(res.body.per_page).toBe(25);
        expect(res.body.total).toBe(want.length);
        expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(pageOf(want, page, 25).map((p) => p.id));
        seen.push(...res.body.results.map((r: { id: string }) => r.id));
      }
      expect(seen).toEqual(want.map((p) => p.id));
      expect(pageOf(want, pages, 25).length).toBe(want.length % 25);
    });

    it('a page past the end is empty, with the real total', async () => {
      const total = expected(lw, f).length;
      // 400 × 25 is the deepest offset page (page × per_page ≤ 10,000; deeper is a 400
      // PAGE_TOO_DEEP, test/integration/lake/offsetReach.test.ts).
      for (const page of [Math.ceil(total / 25) + 1, 400]) {
        const res = await search(lw, { ...f, page });
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual([]);
        expect(res.body.total).toBe(total);
        expect(res.body.page).toBe(page);
      }
    });

    it('per_page 1: the first and the last match', async () => {
      const want = expected(lw, f).sort(byId);
      const first = await search(lw, { ...f, per_page: 1 });
      expect(first.body.results.map((r: { id: string }) => r.id)).toEqual([want[0]!.id]);
      const last = await search(lw, { ...f, per_page: 1, page: want.length });
      expect(last.body.results.map((r: { id: string }) => r.id)).toEqual([want[want.length - 1]!.id]);
      expect(last.body.per_page).toBe(1);
    });

    it('per_page 100 over the whole lake, pages 1 and 30 (the last, full)', async () => {
      const want = [...lw.persons].sort(byId);
      for (const page of [1, 2, 30]) {
        const res = await search(lw, { per_page: 100, page });
        expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(pageOf(want, page, 100).map((p) => p.id));
      }
      expect((await search(lw, { per_page: 100, page: 31 })).body.results).toEqual([]);
    });

    it('query results page consistently too', async () => {
      await expectQueried(lw, { query: 'manager' }, { atLeast: 150 });
    });
  });

  describe('400 VALIDATION_ERROR', () => {
    it.each([
      ['an unknown field', { nope: 1 }],
      ['an unknown field next to valid ones', { title: 'cto', titles: 'cfo' }],
      ['an empty query', { query: '' }],
      ['a number as title', { title: 7 }],
      ['a number as location', { location: 840 }],
      ['an empty location array', { location: [] }],
      ['an unknown seniority', { seniority: 'intern' }],
      ['a repeated seniority', { seniority: ['vp', 'vp'] }],
      ['an empty skills list', { skills: [] }],
      ['skills as a string', { skills: 'Negotiation' }],
      ['a non-numeric company_id', { company_id: 'acme' }],
      ['a numeric company_id as number', { company_id: 4252921 }],
      ['a non-numeric past_company_id', { past_company_id: '12a' }],
      ['page 0', { page: 0 }],
      ['page 1001', { page: 1001 }],
      ['page as a string', { page: '2' }],
      ['page 1.5', { page: 1.5 }],
      ['per_page 0', { per_page: 0 }],
      ['per_page 101', { per_page: 101 }],
      ['a body that is not an object', [1, 2]],
    ])('%s', async (_name, body) => {
      const res = await search(lw, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('names the offending field', async () => {
      expect((await search(lw, { per_page: 101 })).body.error).toMatch(/per_page/);
      expect((await search(lw, { frobnicate: true })).body.error).toMatch(/frobnicate/);
    });

    it('415 for a body that is not JSON', async () => {
      const res = await lw.h.send(
        lw.h.http.post(PATH).set('Authorization', `Bearer ${lw.key}`).set('Content-Type', 'text/plain').send('title=cto'),
      );
      expect(res.status).toBe(415);
    });
  });

  describe('withdrawn profiles', () => {
    it('disappear from every search and from totals', async () => {
      const f: Filters = { seniority: 'vp' };
      const before = expected(lw, f).sort(byId);
      const gone = before[0]!;
      const beforeAll = (await search(lw, {})).body.total;
      await suppress(lw.h.knex, 'person', { by: 'id', value: gone.id });
      lw.forget(gone.id);
      const after = await expectFiltered(lw, f, { atLeast: 1 });
      expect(after.want.length).toBe(before.length - 1);
      expect(after.res.body.results.map((r: { id: string }) => r.id)).not.toContain(gone.id);
      expect((await search(lw, {})).body.total).toBe(beforeAll - 1);
      const byName = await search(lw, { query: gone.full_name, per_page: 100 });
      expect(byName.body.results.map((r: { id: string }) => r.id)).not.toContain(gone.id);
      const byCompany = await search(lw, { company_id: gone.current_company_id!, per_page: 100, seniority: 'vp' });
      expect(byCompany.body.results.map((r: { id: string }) => r.id)).not.toContain(gone.id);
    });
  });
});

describe('POST /people/search: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const at = '2026-01-10T10:00:00Z';
  const base = personRecord();
  const pos = (over: Partial<PersonRecord['positions'][number]>) => ({ ...base.positions[0]!, ...over });
  const mk = (over: Partial<PersonRecord>) =>
    personRecord({ fetched_at: at, seniority: null, current_title: 'Analyst', geo_country_code: 'DE', geo_city: 'Berlin', ...over });

  const engineer = mk({ full_name: 'Ada Quill', current_title: 'Software Engineer' });
  const directorEng = mk({ full_name: 'Bo Quill', current_title: 'Director, Engineering', seniority: 'director' });
  const engManager = mk({ full_name: 'Cy Quill', current_title: 'Engineering Manager', seniority: 'manager' });
  const engineers = mk({ full_name: 'Di Quill', current_title: 'Engineers Lead' });
  // Relevance: the same rare word in the name, in the title, in the company.
  const inName = mk({ full_name: 'Zorblax Smith', current_title: 'Analyst', current_company: 'Acme', fetched_at: '2020-01-01T00:00:00Z' });
  const inTitle = mk({ full_name: 'Ed Smith', current_title: 'Zorblax Analyst', current_company: 'Acme', fetched_at: '2026-03-01T00:00:00Z' });
  const inCompany = mk({ full_name: 'Flo Smith', current_title: 'Analyst', current_company: 'Zorblax', fetched_at: '2026-03-02T00:00:00Z' });
  // Company ID with leading zeros in the record, and past / current positions at one company.
  const padded = mk({ full_name: 'Gil Quill', current_company_id: '000777', current_company: 'Seven Corp' });
  const eight = { current_company_id: '888', current_company: 'Eight Corp' };
  const pastAt777 = mk({
    full_name: 'Hal Quill',
    ...eight,
    positions: [
      pos({ isCurrent: true, companyId: '888', companyName: 'Eight Corp', startYear: 2024, startMonth: 2 }),
      pos({ isCurrent: false, companyId: '777', companyName: 'Seven Corp', startYear: 2020, startMonth: 1, endYear: 2024, endMonth: 1 }),
    ],
  });
  const currentAt777 = mk({
    full_name: 'Ivy Quill',
    current_company_id: '777',
    current_company: 'Seven Corp',
    positions: [pos({ isCurrent: true, companyId: '777', companyName: 'Seven Corp', startYear: 2023, startMonth: 5 })],
  });
  const pastByNameOnly = mk({
    full_name: 'Jo Quill',
    ...eight,
    positions: [
      pos({ isCurrent: true, companyId: '888', companyName: 'Eight Corp', startYear: 2024, startMonth: 2 }),
      pos({ isCurrent: false, companyId: '999', companyName: 'SEVEN CORP', startYear: 2019, startMonth: 3, endYear: 2023, endMonth: 12 }),
    ],
  });
  const all = [engineer, directorEng, engManager, engineers, inName, inTitle, inCompany, padded, pastAt777, currentAt777, pastByNameOnly];

  beforeAll(() => lw.addPersons(...all));

  const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((r) => r.id);
  const sorted = (...ps: PersonRecord[]) => ps.map((p) => p.id).sort();
  const post = (body: unknown) => lw.h.post(PATH, body, lw.key);

  it('title "engineer" matches Software Engineer only, not Engineering nor Engineers', async () => {
    expect(ids(await post({ title: 'Engineer' }))).toEqual([engineer.id]);
  });

  it('title "engineering" matches "Director, Engineering" (punctuation separates words) and "Engineering Manager"', async () => {
    expect(ids(await post({ title: 'ENGINEERING' })).sort()).toEqual(sorted(directorEng, engManager));
    expect(ids(await post({ title: 'director' }))).toEqual([directorEng.id]);
    expect(ids(await post({ title: 'engineer lead' })).sort()).toEqual(sorted(engineer, engineers));
  });

  it('people without a band never match a seniority filter', async () => {
    const res = await post({ seniority: ['c-level', 'vp', 'director', 'manager'] });
    expect(ids(res).sort()).toEqual(sorted(directorEng, engManager));
  });

  it('query: no stemming, whole words, punctuation separates words', async () => {
    expect(ids(await post({ query: 'engineer' }))).toEqual([engineer.id]);
    expect(ids(await post({ query: 'engineers' }))).toEqual([engineers.id]);
    expect(ids(await post({ query: 'engineering director' }))).toEqual([directorEng.id]);
    expect((await post({ query: 'engin' })).body.total).toBe(0);
  });

  it('query orders by relevance: a name match before a title match before a company match', async () => {
    const res = await post({ query: 'zorblax' });
    expect(ids(res)).toEqual([inName.id, inTitle.id, inCompany.id]);
  });

  it('query: equal relevance is ordered by id', async () => {
    const res = await post({ query: 'quill' });
    const quills = all.filter((p) => words(p.full_name).includes('quill'));
    expect(ids(res)).toEqual([...quills].sort(byId).map((p) => p.id));
  });

  it('without query: by id (a key the refresh never moves), whatever fetched_at says', async () => {
    const res = await post({ per_page: 100 });
    expect(ids(res)).toEqual([...all].sort(byId).map((p) => p.id));
  });

  it('company_id matches a record stored with leading zeros', async () => {
    // Same fetched_at: ties by id.
    expect(ids(await post({ company_id: '777' }))).toEqual(sorted(padded, currentAt777));
  });

  it('past_company_id: only an ended position counts', async () => {
    expect(ids(await post({ past_company_id: '777' }))).toEqual([pastAt777.id]);
    expect(ids(await post({ past_company_id: '0777' }))).toEqual([pastAt777.id]);
  });

  it('past_company by name, case-insensitive, only ended positions; past_company_id wins over it', async () => {
    expect(ids(await post({ past_company: 'seven corp' })).sort()).toEqual(sorted(pastAt777, pastByNameOnly));
    expect(ids(await post({ past_company: 'seven corp', past_company_id: '999' }))).toEqual([pastByNameOnly.id]);
    expect(ids(await post({ past_company: 'Eight Corp' }))).toEqual([]);
  });

  it('company by name, case-insensitive; company_id wins over it', async () => {
    expect(ids(await post({ company: 'zorblax' }))).toEqual([inCompany.id]);
    expect(ids(await post({ company: 'zorblax', company_id: '888' })).sort()).toEqual(sorted(pastAt777, pastByNameOnly));
  });
});
