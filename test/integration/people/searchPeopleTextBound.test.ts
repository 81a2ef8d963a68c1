/**
 * POST /people/search with a full-text filter (`query`, `title`) over more matches than it counts
 * (issue 14): `total` is exact up to 1,000, then 1000 with `gte`; a `query` with more than 1,000
 * matches is ordered by most recently verified instead of by relevance, and its cursor walk still
 * sees every match exactly once. Expectations are computed here, in plain JS over the world's
 * records (the oracle of searchPeople.test.ts, reduced to queries of words joined by `or`).
 */
import pg from 'pg';
import { explainMix, pickParameters, readMix } from '../../../bench/readMix';
import type { PersonRecord } from '../../../src/model/records';
import { cursorFor } from '../../../src/domain/paging';
import { STAFF_WORLD } from '../../helpers/companyStaff';
import { SHARED_WORLD, byId, useLakeWorld, words, type LakeWorld } from '../../helpers/lakeWorld';

const PATH = '/api/v1/people/search';
const BOUND = 1000;

type Hit = { id: string; full_name: string };

/** Any of `any` as a whole word of the name, the title or the company. */
const queryMatches = (p: PersonRecord, any: string[]) =>
  [...words(p.full_name), ...words(p.current_title), ...words(p.current_company)].some((w) => any.includes(w));
/** Any of `any` as a whole word of the title. */
const titleMatches = (p: PersonRecord, any: string[]) => words(p.current_title).some((w) => any.includes(w));

/** Title words by the number of persons whose title holds them, most common first. */
function titleWordCounts(persons: PersonRecord[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const p of persons) for (const w of new Set(words(p.current_title))) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** Follows next_cursor from the first page to the last; every page must answer the same total. */
async function walk(lw: LakeWorld, body: object, perPage: number) {
  const hits: Hit[] = [];
  const totals = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < 100; n++) {
    const res = await lw.h.post(PATH, { ...body, per_page: perPage, ...(cursor ? { cursor } : {}) }, lw.key);
    expect(res.status).toBe(200);
    totals.add(`${res.body.total} ${res.body.total_relation}`);
    hits.push(...res.body.results);
    cursor = res.body.next_cursor ?? undefined;
    if (!cursor) return { hits, totals: [...totals] };
  }
  throw new Error('the walk did not end');
}

describe('POST /people/search: full-text filters over more than 1,000 matches', () => {
  const lw = useLakeWorld({ world: SHARED_WORLD });

  /** The most common title words, as many as it takes for more than 1,000 persons to hold one. */
  function commonWords(match: (p: PersonRecord, any: string[]) => boolean): { any: string[]; want: PersonRecord[] } {
    const any: string[] = [];
    for (const [word] of titleWordCounts(lw.persons)) {
      any.push(word);
      const want = lw.persons.filter((p) => match(p, any));
      if (want.length > BOUND + 50) return { any, want };
    }
    throw new Error('the world has too few titles for this test');
  }

  it('title: total 1000 with gte above 1,000 matches, and the cursor walk sees each match once, in id order', async () => {
    const { any, want } = commonWords(titleMatches);
    const first = await lw.h.post(PATH, { title: any.join(' ') }, lw.key);
    expect(first.status).toBe(200);
    expect([first.body.total, first.body.total_relation]).toEqual([BOUND, 'gte']);
    const { hits, totals } = await walk(lw, { title: any.join(' ') }, 100);
    expect(totals).toEqual([`${BOUND} gte`]);
    expect(hits.map((h) => h.id)).toEqual(want.sort(byId).map((p) => p.id));
  });

  it('title: an exact total with eq up to 1,000 matches', async () => {
    const [word, count] = titleWordCounts(lw.persons).find(([, n]) => n > 30 && n <= BOUND)!;
    const res = await lw.h.post(PATH, { title: word, per_page: 5 }, lw.key);
    expect(res.status).toBe(200);
    expect([res.body.total, res.body.total_relation]).toEqual([count, 'eq']);
  });

  it('query over more than 1,000 matches: in id order, every match once by cursor', async () => {
    const { any, want } = commonWords(queryMatches);
    const query = any.join(' or ');
    want.sort(byId);
    const first = await lw.h.post(PATH, { query, per_page: 100 }, lw.key);
    expect(first.status).toBe(200);
    expect([first.body.total, first.body.total_relation]).toEqual([BOUND, 'gte']);
    expect(first.body.results.map((h: Hit) => h.id)).toEqual(want.slice(0, 100).map((p) => p.id));
    const { hits, totals } = await walk(lw, { query }, 90);
    expect(totals).toEqual([`${BOUND} gte`]);
    expect(hits.map((h) => h.id)).toEqual(want.map((p) => p.id));
  });

  it('query over more than 1,000 matches: a cursor page answers the first page total without counting again', async () => {
    const { any } = commonWords(queryMatches);
    const query = any.join(' or ');
    const first = await lw.h.post(PATH, { query, per_page: 10 }, lw.key);
    expect([first.body.total, first.body.total_relation, typeof first.body.next_cursor]).toEqual([BOUND, 'gte', 'string']);
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    lw.h.knex.on('query', onQuery);
    let second;
    try {
      second = await lw.h.post(PATH, { query, per_page: 10, cursor: first.body.next_cursor }, lw.key);
    } finally {
      lw.h.knex.off('query', onQuery);
    }
    expect(second.status).toBe(200);
    expect([second.body.total, second.body.total_relation, second.body.results.length]).toEqual([BOUND, 'gte', 10]);
    expect(statements.some((sql) => /search_words/.test(sql))).toBe(true);
    expect(statements.filter((sql) => /count\(\*\)/i.test(sql))).toEqual([]);
    // The first page counts (the count chooses its order).
    statements.length = 0;
    lw.h.knex.on('query', onQuery);
    try {
      await lw.h.post(PATH, { query, per_page: 10 }, lw.key);
    } finally {
      lw.h.knex.off('query', onQuery);
    }
    expect(statements.filter((sql) => /count\(\*\)/i.test(sql))).toHaveLength(1);
  });

  it('query over more than 1,000 matches: offset pages give the same order as the cursor walk', async () => {
    const { any, want } = commonWords(queryMatches);
    want.sort(byId);
    const page3 = await lw.h.post(PATH, { query: any.join(' or '), page: 3, per_page: 50 }, lw.key);
    expect(page3.status).toBe(200);
    expect(page3.body.results.map((h: Hit) => h.id)).toEqual(want.slice(100, 150).map((p) => p.id));
  });

  it('query up to 1,000 matches: exact total, ranked (a name match first), every match once by cursor', async () => {
    // A word that is some person's first name and some others' title or company word, if the world has one.
    const [word] = titleWordCounts(lw.persons).find(([, n]) => n > 30 && n <= 300)!;
    const want = lw.persons.filter((p) => queryMatches(p, [word]));
    expect(want.length).toBeLessThanOrEqual(BOUND);
    const { hits, totals } = await walk(lw, { query: word }, 25);
    expect(totals).toEqual([`${want.length} eq`]);
    expect(hits.map((h) => h.id).sort()).toEqual(want.map((p) => p.id).sort());

    const named = lw.persons.find((p) => words(p.full_name).length > 1)!;
    const name = words(named.full_name)[0]!;
    const byName = await lw.h.post(PATH, { query: name, per_page: 100 }, lw.key);
    expect(byName.status).toBe(200);
    const ranked = byName.body.results as Hit[];
    // Relevance: every hit with the word in its name comes before every hit without it.
    const inName = ranked.map((h) => words(h.full_name).includes(name));
    expect(inName.indexOf(false) === -1 || inName.lastIndexOf(true) < inName.indexOf(false)).toBe(true);
    expect(inName[0]).toBe(true);
  });

  it('400 INVALID_CURSOR for a query cursor whose key names no order (a hand-made or older cursor)', async () => {
    const query = 'engineer';
    const p = lw.persons[0]!;
    for (const key of [['0.5', p.id], ['best', '0.5', p.id]]) {
      const res = await lw.h.post(PATH, { query, cursor: cursorFor('searchPeople', { query }, key) }, lw.key);
      expect([key, res.status, res.body.code]).toEqual([key, 400, 'INVALID_CURSOR']);
    }
  });
});

describe('EXPLAIN gate: the read mix reaches the recency walk of a query (more than 1,000 matches)', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  let explainer: pg.Client;
  afterAll(() => explainer?.end());

  it('the mix entries "full-text common words" match more than 1,000 in the gate world and pass the gate', async () => {
    explainer = new pg.Client({ connectionString: lw.url, application_name: 'explain-gate-text' });
    explainer.on('error', () => undefined);
    await explainer.connect();
    await explainer.query('set enable_seqscan = off');
    const entries = readMix(await pickParameters(lw.h.knex)).filter((e) => e.name.startsWith('search: full-text common words'));
    expect(entries.length).toBe(2);
    const checked = await explainMix({
      knex: lw.h.knex,
      explainer,
      entries,
      send: async (entry) => {
        const res = await lw.h.send(lw.h.http.post(entry.path).send(entry.body as object).set('Authorization', `Bearer ${lw.key}`));
        return { status: res.status, body: res.body };
      },
    });
    for (const c of checked) {
      expect([c.entry.name, c.status, c.unexplained, c.seqScans]).toEqual([c.entry.name, 200, [], []]);
      expect(c.summary).toMatch(/^200, total 1000,/);
      // The count, the page and the hits; a cursor page in id order does not count again.
      expect(c.explained).toBeGreaterThanOrEqual(c.entry.name.endsWith('cursor') ? 2 : 3);
    }
  });
});
