/**
 * GET /person/colleagues, /person/similar and /person/job-changes on a dedicated seeded world and on
 * hand-made records; expectations computed here in plain JS from the contract's semantics.
 */
import type { PersonRecord } from '../../../src/db/repositories/personRecords';
import { suppress } from '../../../src/domain/lake/suppression';
import { personRecord } from '../../helpers/lakeRecords';
import {
  byId, byRecent, byStaff, currentPosition, monthIndex, pageOf, personHit, previousPosition, sameCompanyId,
  useLakeWorld, windowStart, type LakeWorld,
} from '../../helpers/lakeWorld';

const enc = encodeURIComponent;
type Res = { status: number; body: { results: { id: string }[]; total: number; page: number; per_page: number; code?: string } };
const ids = (res: Res) => res.body.results.map((r) => r.id);

/** Every page at per_page 100, checked for a consistent total and no repeats. */
async function listAll(lw: LakeWorld, path: string): Promise<{ ids: string[]; total: number; hits: Record<string, unknown>[] }> {
  const out: Record<string, unknown>[] = [];
  let total = -1;
  for (let page = 1; page <= 40; page++) {
    const res = (await lw.h.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, lw.key)) as unknown as Res;
    expect(res.status).toBe(200);
    if (total === -1) total = res.body.total;
    expect(res.body.total).toBe(total);
    out.push(...(res.body.results as unknown as Record<string, unknown>[]));
    if (res.body.results.length < 100) break;
  }
  const list = out.map((h) => h.id as string);
  expect(new Set(list).size).toBe(list.length);
  return { ids: list, total, hits: out };
}

// ---- Oracles -------------------------------------------------------------------------------------
const colleaguesOf = (lw: LakeWorld, s: PersonRecord) =>
  s.current_company_id == null
    ? []
    : lw.persons.filter((p) => p.id !== s.id && sameCompanyId(p.current_company_id, s.current_company_id)).sort(byStaff);

const similarTo = (lw: LakeWorld, s: PersonRecord) =>
  lw.persons
    .filter(
      (p) =>
        p.id !== s.id &&
        (s.seniority == null || p.seniority === s.seniority) &&
        (s.current_company_industry == null || p.current_company_industry === s.current_company_industry) &&
        (s.geo_country_code == null || p.geo_country_code?.toUpperCase() === s.geo_country_code.toUpperCase()),
    )
    .sort(byRecent);

function employerDiffers(cur: PersonRecord['positions'][number], prev: PersonRecord['positions'][number]): boolean {
  const numeric = (id: string | null | undefined) => id != null && /^[0-9]{1,18}$/.test(id);
  if (numeric(cur.companyId) && numeric(prev.companyId)) return !sameCompanyId(cur.companyId, prev.companyId);
  return (cur.companyName ?? '').toLowerCase() !== (prev.companyName ?? '').toLowerCase();
}
const startOf = (p: PersonRecord) => {
  const c = currentPosition(p)!;
  return monthIndex(c.startYear, c.startMonth);
};
function jobChanges(lw: LakeWorld, o: { within?: number; previousId?: string; previousName?: string } = {}) {
  const from = windowStart(o.within ?? 3);
  return lw.persons
    .filter((p) => {
      const cur = currentPosition(p);
      const prev = previousPosition(p);
      if (!cur || !prev || !employerDiffers(cur, prev)) return false;
      if (monthIndex(cur.startYear, cur.startMonth) < from) return false;
      if (o.previousId !== undefined) return sameCompanyId(prev.companyId, o.previousId);
      if (o.previousName !== undefined) return (prev.companyName ?? '').toLowerCase() === o.previousName.toLowerCase();
      return true;
    })
    .sort((a, b) => startOf(b) - startOf(a) || byId(a, b));
}
function jobChangeOf(p: PersonRecord) {
  const cur = currentPosition(p)!;
  const prev = previousPosition(p)!;
  return {
    previous_company: prev.companyName ?? null,
    previous_company_id: prev.companyId || null,
    previous_title: prev.title ?? null,
    new_company: cur.companyName,
    new_company_id: cur.companyId || null,
    new_title: cur.title ?? null,
    started_year: cur.startYear,
    started_month: cur.startMonth >= 1 ? cur.startMonth : null,
  };
}

describe('person relationships on a seeded world', () => {
  const lw = useLakeWorld({ world: { persons: 3000, companies: 60, seed: 9191 } });
  const companySizes = () => {
    const n = new Map<string, number>();
    for (const p of lw.persons) n.set(p.current_company_id!, (n.get(p.current_company_id!) ?? 0) + 1);
    return n;
  };
  /** A person at a company with more than 100 other employees (so results span pages). */
  const bigSubject = () => {
    const sizes = companySizes();
    return lw.persons.find((p) => (sizes.get(p.current_company_id!) ?? 0) > 120)!;
  };
  const midSubject = () => {
    const sizes = companySizes();
    return lw.persons.find((p) => {
      const n = sizes.get(p.current_company_id!) ?? 0;
      return n > 30 && n < 90 && n % 25 !== 1;
    })!;
  };

  describe('GET /person/colleagues', () => {
    const path = (q: string) => `/api/v1/person/colleagues?${q}`;

    it('same current employer, subject excluded, ordered by band, then full_name (binary), then id', async () => {
      const s = bigSubject();
      const want = colleaguesOf(lw, s);
      expect(want.length).toBeGreaterThan(100);
      const got = await listAll(lw, path(`id=${s.id}`));
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      expect(got.ids).not.toContain(s.id);
      const byKey = new Map(lw.persons.map((p) => [p.id, p]));
      for (const hit of got.hits) expect(hit).toEqual(personHit(byKey.get(hit.id as string)!));
    });

    it('finds the subject by network_url, username or id, in that order', async () => {
      const s = midSubject();
      const other = bigSubject();
      const want = colleaguesOf(lw, s).slice(0, 25).map((p) => p.id);
      for (const q of [
        `network_url=${enc(s.network_url)}`,
        `network_url=${enc(s.network_url.replace('https://www.', 'http://'))}&id=${other.id}`,
        `username=${s.username.toUpperCase()}`,
        `username=${s.username}&id=${other.id}`,
        `id=${s.id}`,
      ]) {
        const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
        expect(res.status).toBe(200);
        expect(ids(res)).toEqual(want);
      }
    });

    it('pages: default 25, the last partial page, a page past the end, per_page 1', async () => {
      const s = midSubject();
      const want = colleaguesOf(lw, s);
      const last = Math.ceil(want.length / 25);
      const seen: string[] = [];
      for (let page = 1; page <= last; page++) {
        const res = (await lw.h.get(path(`id=${s.id}&page=${page}`), lw.key)) as unknown as Res;
        expect(res.body.per_page).toBe(25);
        expect(res.body.page).toBe(page);
        expect(ids(res)).toEqual(pageOf(want, page, 25).map((p) => p.id));
        seen.push(...ids(res));
      }
      expect(seen).toEqual(want.map((p) => p.id));
      const past = (await lw.h.get(path(`id=${s.id}&page=${last + 1}`), lw.key)) as unknown as Res;
      expect(past.status).toBe(200);
      expect(past.body.results).toEqual([]);
      expect(past.body.total).toBe(want.length);
      const one = (await lw.h.get(path(`id=${s.id}&per_page=1&page=${want.length}`), lw.key)) as unknown as Res;
      expect(ids(one)).toEqual([want[want.length - 1]!.id]);
    });
  });

  describe('GET /person/similar', () => {
    const path = (q: string) => `/api/v1/person/similar?${q}`;

    it('same band, industry and country; subject excluded; most recently verified first', async () => {
      const s = lw.persons.find((p) => p.seniority === 'manager' && p.geo_country_code === 'US')!;
      const want = similarTo(lw, s);
      expect(want.length).toBeGreaterThan(2);
      const got = await listAll(lw, path(`username=${s.username}`));
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    });

    it('a subject without a band: the band is left out (any band matches)', async () => {
      const s = lw.persons.find((p) => p.seniority == null && p.geo_country_code === 'US')!;
      const want = similarTo(lw, s);
      expect(want.some((p) => p.seniority != null)).toBe(true);
      expect(want.some((p) => p.seniority == null)).toBe(true);
      const got = await listAll(lw, path(`id=${s.id}`));
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    });

    it('a few more subjects', async () => {
      for (const s of lw.persons.filter((p) => p.seniority === 'director' || p.seniority === 'vp').slice(0, 4)) {
        const want = similarTo(lw, s);
        const got = await listAll(lw, path(`network_url=${enc(s.network_url)}`));
        expect(got.total).toBe(want.length);
        expect(got.ids).toEqual(want.map((p) => p.id));
      }
    });
  });

  describe('GET /person/job-changes', () => {
    const path = (q = '') => `/api/v1/person/job-changes?${q}`;

    it('default window (3 months): new employer, start date desc, then id; job_change from the two positions', async () => {
      const want = jobChanges(lw);
      expect(want.length).toBeGreaterThan(20);
      const got = await listAll(lw, path());
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      const byKey = new Map(lw.persons.map((p) => [p.id, p]));
      for (const hit of got.hits) {
        const p = byKey.get(hit.id as string)!;
        expect(hit).toEqual({ ...personHit(p), job_change: jobChangeOf(p) });
      }
    });

    it.each([1, 2, 6, 24])('within_months=%i', async (within) => {
      const want = jobChanges(lw, { within });
      const got = await listAll(lw, path(`within_months=${within}`));
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    });

    it('previous_company_id, previous_company (case-insensitive), and the id wins over the name', async () => {
      const changes = jobChanges(lw, { within: 24 });
      const counts = new Map<string, { id: string; name: string; n: number }>();
      for (const p of changes) {
        const prev = previousPosition(p)!;
        const c = counts.get(prev.companyId) ?? { id: prev.companyId, name: prev.companyName, n: 0 };
        c.n++;
        counts.set(c.id, c);
      }
      const [a, b] = [...counts.values()].sort((x, y) => y.n - x.n);
      const byIdWant = jobChanges(lw, { within: 24, previousId: a!.id });
      expect(byIdWant.length).toBeGreaterThan(1);
      let got = await listAll(lw, path(`within_months=24&previous_company_id=${a!.id}`));
      expect(got.ids).toEqual(byIdWant.map((p) => p.id));
      got = await listAll(lw, path(`within_months=24&previous_company_id=000${a!.id}`));
      expect(got.ids).toEqual(byIdWant.map((p) => p.id));
      const byNameWant = jobChanges(lw, { within: 24, previousName: b!.name });
      got = await listAll(lw, path(`within_months=24&previous_company=${enc(b!.name.toUpperCase())}`));
      expect(got.ids).toEqual(byNameWant.map((p) => p.id));
      got = await listAll(lw, path(`within_months=24&previous_company=${enc(b!.name)}&previous_company_id=${a!.id}`));
      expect(got.ids).toEqual(byIdWant.map((p) => p.id));
      // The default window with a previous employer.
      got = await listAll(lw, path(`previous_company_id=${a!.id}`));
      expect(got.ids).toEqual(jobChanges(lw, { previousId: a!.id }).map((p) => p.id));
    });

    it('an unknown previous employer is a 200 with no results', async () => {
      for (const q of ['previous_company_id=999999999999', 'previous_company=No%20Such%20Company']) {
        const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(0);
        expect(res.body.results).toEqual([]);
      }
    });

    it('pages: last partial page and past the end', async () => {
      const want = jobChanges(lw, { within: 6 });
      const last = Math.ceil(want.length / 25);
      const res = (await lw.h.get(path(`within_months=6&page=${last}`), lw.key)) as unknown as Res;
      expect(ids(res)).toEqual(pageOf(want, last, 25).map((p) => p.id));
      const past = (await lw.h.get(path(`within_months=6&page=${last + 1}`), lw.key)) as unknown as Res;
      expect(past.body.results).toEqual([]);
      expect(past.body.total).toBe(want.length);
    });

    it.each([
      ['within_months=0'],
      ['within_months=25'],
      ['within_months=abc'],
      ['within_months=1.5'],
      ['previous_company_id=acme'],
      ['previous_company='],
      ['per_page=101'],
      ['page=0'],
      ['nope=1'],
    ])('400 VALIDATION_ERROR: %s', async (q) => {
      const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('subjects: 400, 404, 451', () => {
    it.each(['colleagues', 'similar'])('%s: 400 for a missing or malformed identifier', async (op) => {
      for (const q of [
        '',
        'page=1',
        `network_url=${enc('https://www.linkedin.com/company/acme/')}`,
        `network_url=${enc('https://www.linkedin.com/in/')}`,
        'network_url=not-a-url',
        'id=42',
        'username=',
        `id=${lw.persons[0]!.id}&per_page=0`,
        `id=${lw.persons[0]!.id}&page=1001`,
      ]) {
        const res = (await lw.h.get(`/api/v1/person/${op}?${q}`, lw.key)) as unknown as Res;
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it.each(['colleagues', 'similar'])('%s: 404 for a subject the lake does not hold, by every identifier', async (op) => {
      const ghost = personRecord();
      for (const q of [`id=${ghost.id}`, `username=${ghost.username}`, `network_url=${enc(ghost.network_url)}`]) {
        const res = (await lw.h.get(`/api/v1/person/${op}?${q}`, lw.key)) as unknown as Res;
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('withdrawn profiles (run last: they change the world)', () => {
    it('a withdrawn subject is 451 by every identifier', async () => {
      const s = lw.persons[10]!;
      await suppress(lw.h.knex, 'person', { by: 'id', value: s.id });
      lw.forget(s.id);
      for (const op of ['colleagues', 'similar']) {
        for (const q of [`id=${s.id}`, `username=${s.username}`, `network_url=${enc(s.network_url)}`]) {
          const res = (await lw.h.get(`/api/v1/person/${op}?${q}`, lw.key)) as unknown as Res;
          expect(res.status).toBe(451);
          expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
        }
      }
    });

    it('withdrawn people disappear from colleagues, similar and job changes, and from totals', async () => {
      const s = midSubject();
      const colleague = colleaguesOf(lw, s)[0]!;
      const similarSubject = lw.persons.find((p) => p.seniority === 'manager' && p.geo_country_code === 'US')!;
      const similar = similarTo(lw, similarSubject)[0]!;
      const changer = jobChanges(lw, { within: 24 })[0]!;
      for (const p of [colleague, similar, changer]) {
        if (!lw.persons.includes(p)) continue;
        await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
        lw.forget(p.id);
      }
      let got = await listAll(lw, `/api/v1/person/colleagues?id=${s.id}`);
      expect(got.ids).toEqual(colleaguesOf(lw, s).map((p) => p.id));
      expect(got.ids).not.toContain(colleague.id);
      got = await listAll(lw, `/api/v1/person/similar?id=${similarSubject.id}`);
      expect(got.ids).toEqual(similarTo(lw, similarSubject).map((p) => p.id));
      expect(got.ids).not.toContain(similar.id);
      got = await listAll(lw, '/api/v1/person/job-changes?within_months=24');
      expect(got.ids).toEqual(jobChanges(lw, { within: 24 }).map((p) => p.id));
      expect(got.ids).not.toContain(changer.id);
    });
  });
});

describe('person relationships: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const now = new Date();
  const cm = now.getUTCFullYear() * 12 + now.getUTCMonth(); // current month index
  const ym = (m: number) => ({ startYear: Math.floor(m / 12), startMonth: (m % 12) + 1 });
  const base = personRecord();
  type Pos = PersonRecord['positions'][number];
  const pos = (over: Partial<Pos>): Pos => ({ ...base.positions[0]!, endYear: null, endMonth: null, ...over });
  const job = (companyId: string, companyName: string, start: number, title = 'Analyst', startMonth?: number): Pos =>
    pos({ isCurrent: true, companyId, companyName, title, ...ym(start), ...(startMonth !== undefined ? { startMonth } : {}) });
  const past = (companyId: string, companyName: string, end: number, title = 'Associate'): Pos =>
    pos({ isCurrent: false, companyId, companyName, title, ...ym(end - 24), endYear: Math.floor(end / 12), endMonth: (end % 12) + 1 });
  const mk = (positions: Pos[], over: Partial<PersonRecord> = {}) => {
    const cur = positions[0]!.isCurrent ? positions[0]! : undefined;
    return personRecord({
      fetched_at: '2026-02-01T00:00:00Z',
      current_company: cur?.companyName ?? null,
      current_company_id: cur?.companyId ?? null,
      current_title: cur?.title ?? null,
      positions,
      ...over,
    } as Partial<PersonRecord>);
  };

  const tieA = mk([job('200', 'New Co', cm), past('100', 'Old Co', cm - 1)]);
  const tieB = mk([job('200', 'New Co', cm), past('100', 'Old Co', cm - 1)]);
  const lastMonth = mk([job('200', 'New Co', cm - 1, 'Lead'), past('100', 'Old Co', cm - 2, 'Engineer')], {
    seniority: 'manager', geo_country_code: 'FR', current_company_industry: 'Banking',
  });
  const sameEmployer = mk([job('200', 'New Co', cm, 'Manager'), past('200', 'New Co', cm - 1, 'Engineer')]);
  const zerosSame = mk([job('300', 'Third Co', cm), past('000300', 'Third Co (old name)', cm - 1)]);
  const byNameSame = mk([job('400', 'ACME', cm), past('', 'acme', cm - 1)]);
  const tooOld = mk([job('200', 'New Co', cm - 3), past('100', 'Old Co', cm - 4)], { seniority: 'manager' });
  const firstJob = mk([job('200', 'New Co', cm)]);
  const noCurrent = mk([past('200', 'New Co', cm), past('100', 'Old Co', cm - 30)]);
  const paddedPrev = mk([job('200', 'New Co', cm - 2), past('0100', 'Old Co Renamed', cm - 3)]);
  const all = [tieA, tieB, lastMonth, sameEmployer, zerosSame, byNameSame, tooOld, firstJob, noCurrent, paddedPrev];

  // Colleagues / similar subjects with missing values.
  const unemployed = mk([past('200', 'New Co', cm - 5)], { seniority: 'manager', current_company_industry: null as unknown as string, geo_country_code: null as unknown as string });
  const alpha = mk([job('600', 'Sort Co', cm - 40)], { full_name: 'alice Zed', seniority: null });
  const upper = mk([job('600', 'Sort Co', cm - 40)], { full_name: 'Zoe Able', seniority: null });
  const accent = mk([job('600', 'Sort Co', cm - 40)], { full_name: 'Émile Roux', seniority: null });
  const boss = mk([job('600', 'Sort Co', cm - 40)], { full_name: 'Zed Boss', seniority: 'c-level' });
  const vp1 = mk([job('0600', 'Sort Co', cm - 40)], { full_name: 'Bob Vp', seniority: 'vp', current_company_id: '0600' });
  const vp2 = mk([job('600', 'Sort Co', cm - 40)], { full_name: 'Bob Vp', seniority: 'vp' });

  beforeAll(() => lw.addPersons(...all, unemployed, alpha, upper, accent, boss, vp1, vp2));

  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('job changes: the hand-checked list for the default window', async () => {
    const res = await get('/api/v1/person/job-changes?per_page=100');
    expect(ids(res)).toEqual(jobChanges(lw).map((p) => p.id));
    if (now.getUTCMonth() >= 3) {
      // This month: tieA and tieB, by id; then last month; then two months ago.
      const thisMonth = [tieA, tieB].map((p) => p.id).sort();
      expect(ids(res)).toEqual([...thisMonth, lastMonth.id, paddedPrev.id]);
    }
  });

  it('job changes: same employer (by id, leading zeros, or by name) is not a change; no previous or no current position neither', async () => {
    const res = await get('/api/v1/person/job-changes?within_months=24&per_page=100');
    for (const p of [sameEmployer, zerosSame, byNameSame, firstJob, noCurrent]) expect(ids(res)).not.toContain(p.id);
    for (const p of [tieA, tieB, lastMonth, tooOld, paddedPrev]) expect(ids(res)).toContain(p.id);
  });

  it('job changes: the window counts whole months back from the current UTC month', async () => {
    expect(ids(await get('/api/v1/person/job-changes?within_months=3&per_page=100'))).not.toContain(tooOld.id);
    expect(ids(await get('/api/v1/person/job-changes?within_months=4&per_page=100'))).toContain(tooOld.id);
    expect(ids(await get('/api/v1/person/job-changes?within_months=1&per_page=100')).sort()).toEqual([tieA, tieB].map((p) => p.id).sort());
    expect(ids(await get('/api/v1/person/job-changes?within_months=2&per_page=100'))).toEqual([...[tieA, tieB].map((p) => p.id).sort(), lastMonth.id]);
  });

  it('job changes: previous employer filters use the previous position, by number or by name', async () => {
    expect(ids(await get('/api/v1/person/job-changes?previous_company_id=100&per_page=100')).sort()).toEqual(
      [tieA, tieB, lastMonth, paddedPrev].map((p) => p.id).sort(),
    );
    expect(ids(await get('/api/v1/person/job-changes?previous_company=old%20co%20RENAMED'))).toEqual([paddedPrev.id]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=NEW%20CO'))).toEqual([]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=old%20co&previous_company_id=999'))).toEqual([]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=Old%20Co%20Renamed&previous_company_id=100&per_page=100')).sort()).toEqual(
      [tieA, tieB, lastMonth, paddedPrev].map((p) => p.id).sort(),
    );
  });

  it('job_change of a plain case', async () => {
    const res = await get('/api/v1/person/job-changes?previous_company_id=100&within_months=2&per_page=100');
    const hit = res.body.results.find((r) => r.id === lastMonth.id) as unknown as { job_change: Record<string, unknown> };
    const s = ym(cm - 1);
    expect(hit.job_change).toEqual({
      previous_company: 'Old Co', previous_company_id: '100', previous_title: 'Engineer',
      new_company: 'New Co', new_company_id: '200', new_title: 'Lead', started_year: s.startYear, started_month: s.startMonth,
    });
  });

  it('colleagues: a subject without a current employer has none (200, empty)', async () => {
    const res = await get(`/api/v1/person/colleagues?id=${unemployed.id}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });

  it('colleagues: band first, then full_name in binary order (upper case before lower, accents after), then id', async () => {
    const vps = [vp1, vp2].sort(byId).map((p) => p.id);
    const res = await get(`/api/v1/person/colleagues?id=${boss.id}`);
    expect(ids(res)).toEqual([...vps, upper.id, alpha.id, accent.id]);
    const fromUpper = await get(`/api/v1/person/colleagues?id=${upper.id}`);
    expect(ids(fromUpper)).toEqual([boss.id, ...vps, alpha.id, accent.id]);
  });

  it('similar: criteria the subject lacks are left out', async () => {
    // No industry, no country: every other manager, whatever their industry and country.
    const want = similarTo(lw, lw.persons.find((p) => p.id === unemployed.id)!);
    expect(want.map((p) => p.id).sort()).toEqual([lastMonth.id, tooOld.id].sort());
    const res = await get(`/api/v1/person/similar?id=${unemployed.id}&per_page=100`);
    expect(ids(res)).toEqual(want.map((p) => p.id));
    expect(res.body.results.every((r) => (r as unknown as { seniority: string }).seniority === 'manager')).toBe(true);
  });
});

describe('job changes: a previous position without a company ID, a start without a month', () => {
  const lw = useLakeWorld();
  const now = new Date();
  const cm = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const ym = (m: number) => ({ startYear: Math.floor(m / 12), startMonth: (m % 12) + 1 });
  const base = personRecord();
  type Pos = PersonRecord['positions'][number];
  const pos = (over: Partial<Pos>): Pos => ({ ...base.positions[0]!, endYear: null, endMonth: null, ...over });
  const mk = (positions: Pos[]) =>
    personRecord({ current_company: positions[0]!.companyName, current_company_id: positions[0]!.companyId, current_title: positions[0]!.title, positions });
  // The previous employer has no company ID (empty in the record): compared by name; job_change.previous_company_id is null.
  const byNameDiff = mk([
    pos({ isCurrent: true, companyId: '400', companyName: 'ACME', title: 'Analyst', ...ym(cm) }),
    pos({ isCurrent: false, companyId: '', companyName: 'Foo Ltd', title: 'Associate', ...ym(cm - 20), endYear: Math.floor((cm - 1) / 12), endMonth: ((cm - 1) % 12) + 1 }),
  ]);
  const byNameSame = mk([
    pos({ isCurrent: true, companyId: '400', companyName: 'ACME', title: 'Analyst', ...ym(cm) }),
    pos({ isCurrent: false, companyId: '', companyName: 'acme', title: 'Associate', ...ym(cm - 20), endYear: Math.floor((cm - 1) / 12), endMonth: ((cm - 1) % 12) + 1 }),
  ]);
  // Unknown start month (0): counted as January of the start year; started_month is null.
  const yearOnly = mk([
    pos({ isCurrent: true, companyId: '500', companyName: 'Year Co', title: 'Analyst', startYear: now.getUTCFullYear(), startMonth: 0 }),
    pos({ isCurrent: false, companyId: '100', companyName: 'Old Co', title: 'Associate', ...ym(cm - 40), endYear: now.getUTCFullYear() - 1, endMonth: 12 }),
  ]);
  beforeAll(() => lw.addPersons(byNameDiff, byNameSame, yearOnly));
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('compared by name when an ID is missing; previous_company_id is null', async () => {
    const res = await get('/api/v1/person/job-changes?within_months=1');
    expect(ids(res)).toEqual([byNameDiff.id]);
    expect((res.body.results[0] as unknown as { job_change: unknown }).job_change).toEqual({
      previous_company: 'Foo Ltd', previous_company_id: null, previous_title: 'Associate',
      new_company: 'ACME', new_company_id: '400', new_title: 'Analyst', ...{ started_year: ym(cm).startYear, started_month: ym(cm).startMonth },
    });
    expect(ids(await get('/api/v1/person/job-changes?within_months=1&previous_company=foo%20ltd'))).toEqual([byNameDiff.id]);
  });

  it('job changes: an unknown start month counts as January, and started_month is null', async () => {
    const month = now.getUTCMonth(); // 0-based: January of this year is `month` months back
    const inside = await get(`/api/v1/person/job-changes?within_months=${month + 1}&previous_company_id=100&per_page=100`);
    const hit = inside.body.results.find((r) => r.id === yearOnly.id) as unknown as { job_change: Record<string, unknown> };
    expect(hit).toBeDefined();
    expect(hit.job_change).toEqual({
      previous_company: 'Old Co', previous_company_id: '100', previous_title: 'Associate',
      new_company: 'Year Co', new_company_id: '500', new_title: 'Analyst', started_year: now.getUTCFullYear(), started_month: null,
    });
    if (month >= 1) {
      expect(ids(await get(`/api/v1/person/job-changes?within_months=${month}&previous_company_id=100&per_page=100`))).not.toContain(yearOnly.id);
    }
  });

});
