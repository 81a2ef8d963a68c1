/**
 * Cursor paging (issue 14) across every list operation but the monitors': `next_cursor` walks a
 * whole result set without a page cap, and stays exact while rows are inserted into and deleted
 * from the list between pages: every row present before the walk and not deleted during it is
 * seen exactly once, nothing is seen twice. Inserted rows are clones of the list's own rows (same
 * filters) with fresh identities and sort keys spread over the whole order, so they land before and
 * after the walk's position. Deletions are withdrawals (the lake's delete). Responses go through
 * the harness's contract validator like every other test.
 */
import { randomInt } from 'node:crypto';
import type { CompanyRecord, PersonRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import { currentPosition, useLakeWorld, type LakeWorld } from '../../helpers/lakeWorld';
import { RELATIONSHIP_WORLD, bigSubject, enc, jobChanges, similarTo } from '../../helpers/personRelationships';

type Body = {
  results: { id: string }[];
  total: number;
  total_relation: 'eq' | 'gte';
  page?: number;
  per_page: number;
  next_cursor: string | null;
  code?: string;
};
type Res = { status: number; body: Body };

/** One list: how to ask for a page, and how to make a row that belongs to it. */
interface ListCase {
  name: string;
  /** The list's request, its filters fixed when the walk starts. */
  open(lw: LakeWorld): (paging: Record<string, string | number>) => Promise<Res>;
  /** A new row of this list, cloned from one of its rows; returns its id. */
  insert(lw: LakeWorld, like: string): Promise<string>;
  remove(lw: LakeWorld, id: string): Promise<void>;
}

const spreadDate = () => new Date(Date.UTC(2024, 0, 1) + randomInt(0, 3 * 365) * 86_400_000 + randomInt(0, 86_400_000)).toISOString();

/** A person like `like` (same list membership) with a new identity, verified at another time. */
async function clonePerson(lw: LakeWorld, like: string): Promise<string> {
  const source = lw.persons.find((p) => p.id === like)!;
  const { id: _id, username: _u, network_url: _n, network_id: _ni, network_urn: _nu, ...rest } = structuredClone(source);
  const copy = personRecord({ ...rest, fetched_at: spreadDate(), full_name: `${source.full_name} ${randomInt(1000, 9999)}` } as Partial<PersonRecord>);
  await lw.addPersons(copy);
  return copy.id;
}

async function withdrawPerson(lw: LakeWorld, id: string): Promise<void> {
  await suppress(lw.h.knex, 'person', { by: 'id', value: id });
  lw.forget(id);
}

const query = (paging: Record<string, string | number>) =>
  Object.entries(paging)
    .map(([k, v]) => `&${k}=${enc(String(v))}`)
    .join('');

/** A GET list whose filters are `filters(lw)`. */
const getList = (name: string, path: string, filters: (lw: LakeWorld) => string): ListCase => ({
  name,
  open: (lw) => {
    const fixed = filters(lw);
    return (paging) => lw.h.get(`/api/v1${path}?${fixed}${query(paging)}`, lw.key) as unknown as Promise<Res>;
  },
  insert: clonePerson,
  remove: withdrawPerson,
});

const searchList = (name: string, body: (lw: LakeWorld) => object): ListCase => ({
  name,
  open: (lw) => {
    const fixed = body(lw);
    return (paging) => lw.h.post('/api/v1/people/search', { ...fixed, ...paging }, lw.key) as unknown as Promise<Res>;
  },
  insert: clonePerson,
  remove: withdrawPerson,
});

const companyOf = (lw: LakeWorld) => bigSubject(lw).current_company_id!;
const schoolOf = (lw: LakeWorld) => {
  const n = new Map<string, number>();
  for (const p of lw.persons) for (const s of new Set(p.educations.map((e) => e.schoolName))) n.set(s, (n.get(s) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]![0];
};
/** The word of names, titles and employers that most persons have. */
const commonWord = (lw: LakeWorld) => {
  const n = new Map<string, number>();
  for (const p of lw.persons) {
    const words = new Set(`${p.full_name} ${p.current_title ?? ''} ${p.current_company ?? ''}`.toLowerCase().split(/[^a-z0-9]+/));
    for (const w of words) if (w.length > 2) n.set(w, (n.get(w) ?? 0) + 1);
  }
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]![0];
};
/** The company with the most current c-level, vp and director people. */
const mostDecisionMakers = (lw: LakeWorld) => {
  const n = new Map<string, number>();
  for (const p of lw.persons) {
    if (p.current_company_id && ['c-level', 'vp', 'director'].includes(p.seniority ?? '')) n.set(p.current_company_id, (n.get(p.current_company_id) ?? 0) + 1);
  }
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0]![0];
};
/** A person of the largest (band, industry, country) group: the longest similar-people list. */
const similarSubject = (lw: LakeWorld) => {
  const group = (p: PersonRecord) => `${p.seniority}|${p.current_company_industry}|${p.geo_country_code?.toUpperCase()}`;
  const full = lw.persons.filter((p) => p.seniority && p.current_company_industry && p.geo_country_code);
  const n = new Map<string, number>();
  for (const p of full) n.set(group(p), (n.get(group(p)) ?? 0) + 1);
  return full.reduce((best, p) => (n.get(group(p))! > n.get(group(best))! ? p : best));
};

const CASES: ListCase[] = [
  searchList('searchPeople, no filters (most recently verified first)', () => ({})),
  searchList('searchPeople, by country', () => ({ location: 'US' })),
  searchList('searchPeople, full text (relevance order)', (lw) => ({ query: commonWord(lw) })),
  getList('listColleagues', '/person/colleagues', (lw) => `id=${bigSubject(lw).id}`),
  getList('listSimilarPeople', '/person/similar', (lw) => `id=${similarSubject(lw).id}`),
  getList('listJobChanges', '/person/job-changes', () => 'within_months=24'),
  getList('listCurrentEmployees', '/company/current-employees', (lw) => `company_id=${companyOf(lw)}`),
  getList('listDecisionMakers', '/company/decision-makers', (lw) => `company_id=${mostDecisionMakers(lw)}`),
  getList('listHiringSignals', '/company/hiring-signals', (lw) => `company_id=${companyOf(lw)}&within_months=24`),
  getList('listPastEmployees', '/company/past-employees', (lw) => {
    const n = new Map<string, number>();
    for (const p of lw.persons) {
      const current = currentPosition(p)?.companyId;
      for (const x of p.positions) if (!x.isCurrent && x.companyId && x.companyId !== current) n.set(x.companyId, (n.get(x.companyId) ?? 0) + 1);
    }
    return `company_id=${[...n.entries()].sort((a, b) => b[1] - a[1])[0]![0]}`;
  }),
  getList('listAlumni', '/institution/alumni', (lw) => `school=${enc(schoolOf(lw))}`),
  {
    name: 'searchCompanies (largest first, unknown headcount last)',
    open: (lw) => (paging) => lw.h.post('/api/v1/companies/search', { ...paging }, lw.key) as unknown as Promise<Res>,
    insert: async (lw, like) => {
      const source = lw.companies.find((c) => c.id === like)!;
      const { id: _id, company_id: _c, username: _u, network_url: _n, ...rest } = structuredClone(source);
      // Some with an unknown headcount: they sort last, after the cursor of any page before them.
      const staff = randomInt(0, 4) === 0 ? null : randomInt(0, 5000);
      const copy = companyRecord({ ...rest, staff_count: staff } as Partial<CompanyRecord>);
      await lw.addCompanies(copy);
      return copy.id;
    },
    remove: async (lw, id) => {
      await suppress(lw.h.knex, 'company', { by: 'id', value: id });
    },
  },
];

/** A walk is tens of requests through the proxy, with lake writes between them: on a busy machine
 * that can take longer than the suite's default safety net. */
const WALK_TIMEOUT_MS = 240_000;

/** Every page by cursor at `perPage`, from page 1; `between` runs after each page. */
async function walk(
  request: ReturnType<ListCase['open']>,
  perPage: number,
  between: (seen: string[]) => Promise<void> = async () => undefined,
): Promise<{ ids: string[]; pages: number }> {
  const seen: string[] = [];
  let res = await request({ per_page: perPage });
  let pages = 0;
  for (;;) {
    expect(res.status).toBe(200);
    expect(res.body.per_page).toBe(perPage);
    pages++;
    seen.push(...res.body.results.map((r) => r.id));
    if (res.body.next_cursor === null) break;
    expect(res.body.results).toHaveLength(perPage);
    await between(seen);
    res = await request({ per_page: perPage, cursor: res.body.next_cursor });
    expect(res.body.page).toBeUndefined();
  }
  return { ids: seen, pages };
}

/** Every page by page number at per_page 100 (the compatibility path). */
async function byPages(request: ReturnType<ListCase['open']>): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; ; page++) {
    const res = await request({ per_page: 100, page });
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(page);
    out.push(...res.body.results.map((r) => r.id));
    if (res.body.next_cursor === null) return out;
  }
}

describe('cursor paging over every list, on a seeded world', () => {
  const lw = useLakeWorld({ world: RELATIONSHIP_WORLD });

  it('the job-change and similar-people lists are big enough to page', () => {
    expect(jobChanges(lw, { within: 24 }).length).toBeGreaterThan(20);
    expect(similarTo(lw, similarSubject(lw)).length).toBeGreaterThan(20);
  });

  describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it('a quiet cursor walk is the page walk: the same rows in the same order, next_cursor null at the end only', async () => {
      const request = c.open(lw);
      const pages = await byPages(request);
      // Earlier cases withdraw rows of the shared world at random, so a list's length varies a
      // little from run to run: the walk takes at least three pages of whatever it has.
      expect(pages.length).toBeGreaterThan(5);
      const first = await request({ per_page: 100 });
      expect(first.body.total_relation).toBe('eq');
      expect(first.body.total).toBe(pages.length);
      // At least three pages, and at most about 15 whatever the list's length: a walk is one request
      // per page through the proxy, and a 3,000-row list at 9 per page was 334 of them. Never 100,
      // so the cursor's page boundaries differ from the page walk's.
      const perPage = Math.min(99, Math.max(9, Math.ceil(pages.length / 15)), Math.floor(pages.length / 3));
      const walked = await walk(request, perPage);
      expect(walked.ids).toEqual(pages);
      expect(walked.pages).toBe(Math.ceil(pages.length / perPage));
    }, WALK_TIMEOUT_MS);

    it('rows inserted and deleted between pages: every stable row exactly once, nothing twice', async () => {
      const request = c.open(lw);
      const before = await byPages(request);
      const deleted = new Set<string>();
      const inserted = new Set<string>();
      const pick = (ids: string[]) => (ids.length ? ids[randomInt(0, ids.length)] : undefined);
      let step = 0;
      // About 12 pages on a long list (each step writes four rows to the lake: 24 inserts and up to
      // 24 withdrawals over the walk; 31 pages of 99, one short of the contract's largest, for the
      // 3,000 persons of the unfiltered search), and at least five pages on a short one: earlier
      // cases' withdrawals leave some lists (decision makers) with a dozen rows.
      expect(before.length).toBeGreaterThan(5);
      const perPage = Math.min(99, Math.max(4, Math.ceil(before.length / 12)), Math.floor(before.length / 5));
      const { ids } = await walk(request, perPage, async (seenSoFar) => {
        step++;
        // Insert two rows like rows of the list (their sort keys land anywhere in the order), delete
        // one row already seen and one not seen yet.
        const alive = before.filter((id) => !deleted.has(id));
        for (let i = 0; i < 2; i++) inserted.add(await c.insert(lw, pick(alive)!));
        const seen = new Set(seenSoFar);
        // Half the list stays: a short list walked in small pages would otherwise run out of rows.
        if (alive.length <= before.length / 2) return;
        for (const id of [pick(alive.filter((x) => seen.has(x))), pick(alive.filter((x) => !seen.has(x)))]) {
          if (id === undefined || deleted.has(id)) continue;
          deleted.add(id);
          await c.remove(lw, id);
        }
      });
      expect(step).toBeGreaterThan(2);
      expect(deleted.size).toBeGreaterThan(2);
      expect(new Set(ids).size).toBe(ids.length);
      const stable = before.filter((id) => !deleted.has(id));
      const count = new Map<string, number>();
      for (const id of ids) count.set(id, (count.get(id) ?? 0) + 1);
      expect(stable.filter((id) => count.get(id) !== 1)).toEqual([]);
      // Whatever else was seen was inserted during the walk.
      expect(ids.filter((id) => !before.includes(id) && !inserted.has(id))).toEqual([]);
      // Each case reads its list again before it starts: earlier cases' inserts and withdrawals
      // change the lake.
    }, WALK_TIMEOUT_MS);
  });
});

describe('cursor errors', () => {
  const lw = useLakeWorld({ world: RELATIONSHIP_WORLD });
  const colleagues = (q: string) => lw.h.get(`/api/v1/person/colleagues?id=${bigSubject(lw).id}&${q}`, lw.key) as unknown as Promise<Res>;

  async function aCursor(): Promise<string> {
    const res = await colleagues('per_page=5');
    expect(res.body.next_cursor).toEqual(expect.any(String));
    return res.body.next_cursor!;
  }

  it('400 INVALID_CURSOR for a malformed cursor', async () => {
    for (const cursor of ['x', 'bm90IGpzb24', Buffer.from('{"k":[],"h":"x"}').toString('base64url'), Buffer.from('[1,2]').toString('base64url')]) {
      const res = await colleagues(`cursor=${cursor}`);
      expect([cursor, res.status, res.body.code]).toEqual([cursor, 400, 'INVALID_CURSOR']);
    }
  });

  it('400 INVALID_CURSOR for a cursor of another query: other operation, other filters, altered', async () => {
    const cursor = await aCursor();
    const other = await lw.h.get(`/api/v1/company/current-employees?company_id=${companyOf(lw)}&cursor=${cursor}`, lw.key);
    expect([other.status, other.body.code]).toEqual([400, 'INVALID_CURSOR']);
    const someoneElse = lw.persons.find((p) => p.current_company_id && p.current_company_id !== bigSubject(lw).current_company_id)!;
    const filters = await lw.h.get(`/api/v1/person/colleagues?id=${someoneElse.id}&cursor=${cursor}`, lw.key);
    expect([filters.status, filters.body.code]).toEqual([400, 'INVALID_CURSOR']);
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { k: string[]; h: string };
    decoded.k[decoded.k.length - 1] = '00000000-0000-4000-8000-000000000000';
    const altered = await colleagues(`cursor=${Buffer.from(JSON.stringify(decoded)).toString('base64url')}`);
    expect([altered.status, altered.body.code]).toEqual([400, 'INVALID_CURSOR']);
    const body = await lw.h.post('/api/v1/people/search', { cursor }, lw.key);
    expect([body.status, body.body.code]).toEqual([400, 'INVALID_CURSOR']);
  });

  it('the same cursor with another per_page is the same query; with page it is a 400 VALIDATION_ERROR', async () => {
    const cursor = await aCursor();
    const all = (await colleagues('per_page=15')).body.results.map((r) => r.id);
    const next = await colleagues(`per_page=10&cursor=${cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.results.map((r) => r.id)).toEqual(all.slice(5, 15));
    const both = await colleagues(`page=2&cursor=${cursor}`);
    expect([both.status, both.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
