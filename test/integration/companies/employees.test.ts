/**
 * Company staff lists (current and past employees, headcount by seniority, hiring signals, decision
 * makers) on a dedicated seeded world and on hand-made records; expectations computed here in plain
 * JS from the contract's semantics.
 */
import type { PersonRecord } from '../../../src/db/repositories/personRecords';
import { suppress } from '../../../src/domain/lake/suppression';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import {
  byId, byStaff, currentPosition, monthIndex, pageOf, personHit, sameCompanyId, useLakeWorld, windowStart,
  type LakeWorld,
} from '../../helpers/lakeWorld';

type Res = { status: number; body: { results: Record<string, unknown>[]; total: number; page: number; per_page: number; code?: string; data?: unknown } };
const ids = (res: Res) => res.body.results.map((r) => r.id as string);
type Pos = PersonRecord['positions'][number];

// ---- Oracles -------------------------------------------------------------------------------------
const currentOf = (lw: LakeWorld, companyId: string) =>
  lw.persons.filter((p) => sameCompanyId(p.current_company_id, companyId)).sort(byStaff);

const DECIDERS = ['c-level', 'vp', 'director'];
const decisionMakersOf = (lw: LakeWorld, companyId: string) => currentOf(lw, companyId).filter((p) => DECIDERS.includes(p.seniority as string));

function headcountOf(lw: LakeWorld, companyId: string) {
  const counts = { 'c-level': 0, vp: 0, director: 0, manager: 0, unassigned: 0 } as Record<string, number>;
  for (const p of currentOf(lw, companyId)) counts[p.seniority ?? 'unassigned']!++;
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), counts };
}

const pastRoleAt = (p: PersonRecord, companyId: string): Pos | undefined =>
  p.positions.some((x) => x.isCurrent && sameCompanyId(x.companyId, companyId))
    ? undefined
    : p.positions.find((x) => !x.isCurrent && sameCompanyId(x.companyId, companyId));
const endKey = (x: Pos) => (x.endYear == null || x.endYear < 1 ? null : monthIndex(x.endYear, x.endMonth));
function pastOf(lw: LakeWorld, companyId: string) {
  return lw.persons
    .filter((p) => pastRoleAt(p, companyId))
    .sort((a, b) => {
      const x = endKey(pastRoleAt(a, companyId)!);
      const y = endKey(pastRoleAt(b, companyId)!);
      if (x !== y) return x == null ? 1 : y == null ? -1 : y - x;
      return byId(a, b);
    });
}
const month = (m: number | null | undefined) => (m != null && m >= 1 ? m : null);
const pastRoleJson = (x: Pos) => ({
  title: x.title ?? null,
  company_name: x.companyName,
  start_year: x.startYear >= 1 ? x.startYear : null,
  start_month: month(x.startMonth),
  end_year: x.endYear != null && x.endYear >= 1 ? x.endYear : null,
  end_month: month(x.endMonth),
});

const startOf = (p: PersonRecord) => monthIndex(currentPosition(p)!.startYear, currentPosition(p)!.startMonth);
function hiringOf(lw: LakeWorld, companyId: string, within = 3) {
  const from = windowStart(within);
  return currentOf(lw, companyId)
    .filter((p) => currentPosition(p) && startOf(p) >= from)
    .sort((a, b) => startOf(b) - startOf(a) || byId(a, b));
}
const joinedJson = (p: PersonRecord) => {
  const c = currentPosition(p)!;
  return { title: c.title ?? null, start_year: c.startYear, start_month: month(c.startMonth) };
};

async function listAll(lw: LakeWorld, path: string) {
  const hits: Record<string, unknown>[] = [];
  let total = -1;
  for (let page = 1; page <= 40; page++) {
    const res = (await lw.h.get(`${path}&per_page=100&page=${page}`, lw.key)) as unknown as Res;
    expect(res.status).toBe(200);
    if (total === -1) total = res.body.total;
    expect(res.body.total).toBe(total);
    hits.push(...res.body.results);
    if (res.body.results.length < 100) break;
  }
  const list = hits.map((h) => h.id as string);
  expect(new Set(list).size).toBe(list.length);
  return { ids: list, total, hits };
}

const LISTS = ['current-employees', 'past-employees', 'hiring-signals', 'decision-makers'] as const;
const ALL_OPS = [...LISTS, 'headcount-by-seniority'] as const;

describe('company staff on a seeded world', () => {
  const lw = useLakeWorld({ world: { persons: 3000, companies: 60, seed: 2718 } });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;
  const bySize = () => {
    const n = new Map<string, number>();
    for (const p of lw.persons) n.set(p.current_company_id!, (n.get(p.current_company_id!) ?? 0) + 1);
    return [...n.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  };
  const byKey = () => new Map(lw.persons.map((p) => [p.id, p]));

  describe('GET /company/current-employees', () => {
    it('the largest company: every current employee, by band, then full_name (binary), then id', async () => {
      const [cid] = bySize();
      const want = currentOf(lw, cid!);
      expect(want.length).toBeGreaterThan(150);
      const got = await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      const k = byKey();
      for (const hit of got.hits) expect(hit).toEqual(personHit(k.get(hit.id as string)!));
    });

    it('several companies, and company_id with leading zeros', async () => {
      for (const cid of bySize().slice(3, 8)) {
        const want = currentOf(lw, cid).map((p) => p.id);
        expect((await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`)).ids).toEqual(want);
      }
      const cid = bySize()[4]!;
      expect((await listAll(lw, `/api/v1/company/current-employees?company_id=000${cid}`)).ids).toEqual(currentOf(lw, cid).map((p) => p.id));
    });

    it('pages: default 25, the last partial page, past the end, per_page 1', async () => {
      const cid = bySize().find((c) => currentOf(lw, c).length % 25 !== 0 && currentOf(lw, c).length > 30)!;
      const want = currentOf(lw, cid);
      const last = Math.ceil(want.length / 25);
      const seen: string[] = [];
      for (let page = 1; page <= last; page++) {
        const res = await get(`/api/v1/company/current-employees?company_id=${cid}&page=${page}`);
        expect(res.body.per_page).toBe(25);
        expect(ids(res)).toEqual(pageOf(want, page, 25).map((p) => p.id));
        seen.push(...ids(res));
      }
      expect(seen).toEqual(want.map((p) => p.id));
      const past = await get(`/api/v1/company/current-employees?company_id=${cid}&page=${last + 1}`);
      expect(past.body.results).toEqual([]);
      expect(past.body.total).toBe(want.length);
      const one = await get(`/api/v1/company/current-employees?company_id=${cid}&per_page=1&page=2`);
      expect(ids(one)).toEqual([want[1]!.id]);
    });
  });

  describe('GET /company/decision-makers', () => {
    it('current employees in c-level, vp and director, in staff order', async () => {
      for (const cid of bySize().slice(0, 6)) {
        const want = decisionMakersOf(lw, cid);
        const got = await listAll(lw, `/api/v1/company/decision-makers?company_id=${cid}`);
        expect(got.total).toBe(want.length);
        expect(got.ids).toEqual(want.map((p) => p.id));
        for (const hit of got.hits) expect(DECIDERS).toContain(hit.seniority);
      }
      expect(decisionMakersOf(lw, bySize()[0]!).length).toBeGreaterThan(5);
    });
  });

  describe('GET /company/headcount-by-seniority', () => {
    it('counts current employees by band, unassigned for no band, total the sum', async () => {
      for (const cid of bySize().slice(0, 10)) {
        const res = await get(`/api/v1/company/headcount-by-seniority?company_id=${cid}`);
        expect(res.status).toBe(200);
        const want = headcountOf(lw, cid);
        expect(res.body.data).toEqual({ company_id: cid, total: want.total, counts: want.counts });
      }
    });

    it('the totals over every company add up to the lake', async () => {
      let sum = 0;
      for (const c of lw.companies) {
        const res = await get(`/api/v1/company/headcount-by-seniority?company_id=${c.company_id}`);
        sum += (res.body.data as { total: number }).total;
      }
      expect(sum).toBe(lw.persons.length);
    });
  });

  describe('GET /company/past-employees', () => {
    it('people with an ended position there and none current, newest end first, with past_role', async () => {
      for (const cid of bySize().slice(0, 5)) {
        const want = pastOf(lw, cid);
        expect(want.length).toBeGreaterThan(0);
        const got = await listAll(lw, `/api/v1/company/past-employees?company_id=${cid}`);
        expect(got.total).toBe(want.length);
        expect(got.ids).toEqual(want.map((p) => p.id));
        const k = byKey();
        for (const hit of got.hits) {
          const p = k.get(hit.id as string)!;
          expect(hit).toEqual({ ...personHit(p), past_role: pastRoleJson(pastRoleAt(p, cid)!) });
        }
      }
    });
  });

  describe('GET /company/hiring-signals', () => {
    it('current employees who started within the window (default 3), newest first, with joined', async () => {
      let seen = 0;
      for (const cid of bySize().slice(0, 8)) {
        const want = hiringOf(lw, cid);
        seen += want.length;
        const got = await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}`);
        expect(got.total).toBe(want.length);
        expect(got.ids).toEqual(want.map((p) => p.id));
        const k = byKey();
        for (const hit of got.hits) {
          const p = k.get(hit.id as string)!;
          expect(hit).toEqual({ ...personHit(p), joined: joinedJson(p) });
        }
      }
      expect(seen).toBeGreaterThan(5);
    });

    it.each([1, 6, 12, 24])('within_months=%i', async (within) => {
      const cid = bySize()[0]!;
      const want = hiringOf(lw, cid, within);
      const got = await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}&within_months=${within}`);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    });
  });

  describe('validation, 404 and 451', () => {
    it.each(ALL_OPS)('%s: 400 for a missing or malformed company_id and bad paging', async (op) => {
      const cid = lw.companies[0]!.company_id;
      const bad = ['', 'company_id=', 'company_id=abc', 'company_id=12345678901234567890', `company_id=${cid}&nope=1`, `company_id=1&company_id=2`];
      if (op !== 'headcount-by-seniority') bad.push(`company_id=${cid}&per_page=101`, `company_id=${cid}&page=0`);
      if (op === 'hiring-signals') bad.push(`company_id=${cid}&within_months=0`, `company_id=${cid}&within_months=25`);
      for (const q of bad) {
        const res = await get(`/api/v1/company/${op}?${q}`);
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it.each(ALL_OPS)('%s: 404 NOT_FOUND for a company the lake does not hold', async (op) => {
      const res = await get(`/api/v1/company/${op}?company_id=999999999999`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });
  });

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people disappear from every list and count', async () => {
      const cid = bySize()[1]!;
      const gone = [currentOf(lw, cid)[0]!, hiringOf(lw, cid, 24)[0]!, pastOf(lw, cid)[0]!];
      const before = headcountOf(lw, cid).total;
      for (const p of new Set(gone)) {
        await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
        lw.forget(p.id);
      }
      const cur = await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`);
      expect(cur.ids).toEqual(currentOf(lw, cid).map((p) => p.id));
      expect((await listAll(lw, `/api/v1/company/decision-makers?company_id=${cid}`)).ids).toEqual(decisionMakersOf(lw, cid).map((p) => p.id));
      expect((await listAll(lw, `/api/v1/company/past-employees?company_id=${cid}`)).ids).toEqual(pastOf(lw, cid).map((p) => p.id));
      expect((await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}&within_months=24`)).ids).toEqual(hiringOf(lw, cid, 24).map((p) => p.id));
      const hc = await get(`/api/v1/company/headcount-by-seniority?company_id=${cid}`);
      expect((hc.body.data as { total: number }).total).toBe(headcountOf(lw, cid).total);
      expect(headcountOf(lw, cid).total).toBeLessThan(before);
      for (const p of gone) expect(cur.ids).not.toContain(p.id);
    });

    it('451 DATA_SUBJECT_BLOCKED on every operation once the company is withdrawn (its people stay)', async () => {
      const company = lw.companies[lw.companies.length - 1]!;
      await suppress(lw.h.knex, 'company', { by: 'company_id', value: company.company_id });
      for (const op of ALL_OPS) {
        for (const cid of [company.company_id, `0${company.company_id}`]) {
          const res = await get(`/api/v1/company/${op}?company_id=${cid}`);
          expect([op, cid, res.status]).toEqual([op, cid, 451]);
          expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
        }
      }
    });
  });
});

describe('company staff: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;
  const now = new Date();
  const cm = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const ym = (m: number) => ({ startYear: Math.floor(m / 12), startMonth: (m % 12) + 1 });
  const base = personRecord();
  const pos = (over: Partial<Pos>): Pos => ({ ...base.positions[0]!, endYear: null, endMonth: null, ...over });
  const cur = (companyId: string, start: number, title = 'Analyst', extra: Partial<Pos> = {}) =>
    pos({ isCurrent: true, companyId, companyName: companyId === '4242' ? 'Acme' : 'Elsewhere', title, ...ym(start), ...extra });
  const ended = (companyId: string, start: number, end: { endYear: number | null; endMonth: number | null }, title = 'Associate') =>
    pos({ isCurrent: false, companyId, companyName: companyId.replace(/^0+/, '') === '4242' ? 'ACME Inc' : 'Elsewhere', title, ...ym(start), ...end });
  const mk = (positions: Pos[], over: Partial<PersonRecord> = {}) => {
    const c = positions[0]!.isCurrent ? positions[0]! : undefined;
    return personRecord({
      fetched_at: '2026-02-01T00:00:00Z',
      seniority: null,
      current_company: c?.companyName ?? null,
      current_company_id: c?.companyId ?? null,
      current_title: c?.title ?? null,
      positions,
      ...over,
    } as Partial<PersonRecord>);
  };
  const acme = companyRecord({ company_id: '4242', name: 'Acme' });
  const empty = companyRecord({ company_id: '5151', name: 'Nobody Corp' });

  const ceo = mk([cur('4242', cm - 50, 'CEO')], { seniority: 'c-level', full_name: 'Zara Chief' });
  const dir = mk([cur('4242', cm, 'Director')], { seniority: 'director', full_name: 'Ann Dir' });
  const mgr = mk([cur('4242', cm - 2, 'Manager')], { seniority: 'manager', full_name: 'Mo Mgr' });
  const ic = mk([cur('4242', cm - 3, 'Analyst')], { full_name: 'ivan ic' });
  const padded = mk([cur('04242', cm, 'Analyst')], { full_name: 'Ivan IC', current_company_id: '04242' });
  // Past employees.
  const twice = mk([cur('1', cm - 10), ended('4242', cm - 60, { endYear: 2023, endMonth: 5 }, 'Lead'), ended('4242', cm - 100, { endYear: 2019, endMonth: 1 }, 'Junior')]);
  const boomerang = mk([cur('4242', cm - 1, 'Returner'), ended('4242', cm - 60, { endYear: 2022, endMonth: 1 })], { full_name: 'Bo Back' });
  const noEnd = mk([cur('1', cm - 10), ended('4242', cm - 60, { endYear: null, endMonth: null })]);
  const yearEnd = mk([cur('1', cm - 10), ended('04242', cm - 60, { endYear: 2023, endMonth: null })]);
  const jan = mk([cur('1', cm - 10), ended('4242', cm - 60, { endYear: 2023, endMonth: 1 })]);
  const recent = mk([cur('1', cm - 1), ended('4242', cm - 30, { endYear: 2025, endMonth: 12 })]);
  const people = [ceo, dir, mgr, ic, padded, twice, boomerang, noEnd, yearEnd, jan, recent];

  beforeAll(async () => {
    await lw.addCompanies(acme, empty);
    await lw.addPersons(...people);
  });

  it('current employees: band order, then full_name in binary order (upper case first), then id', async () => {
    const res = await get('/api/v1/company/current-employees?company_id=4242');
    // Binary: 'Bo Back' < 'Ivan IC' < 'ivan ic'.
    expect(ids(res)).toEqual([ceo, dir, mgr, boomerang, padded, ic].map((p) => p.id));
    expect(ids(res)).toEqual(currentOf(lw, '4242').map((p) => p.id));
  });

  it('decision makers and headcount', async () => {
    expect(ids(await get('/api/v1/company/decision-makers?company_id=4242'))).toEqual([ceo.id, dir.id]);
    const hc = await get('/api/v1/company/headcount-by-seniority?company_id=04242');
    expect(hc.status).toBe(200);
    expect((hc.body.data as { total: number }).total).toBe(6);
    expect((hc.body.data as { counts: unknown }).counts).toEqual({ 'c-level': 1, vp: 0, director: 1, manager: 1, unassigned: 3 });
  });

  it('a known company with nobody: 200 empty everywhere, headcount all zeros', async () => {
    for (const op of LISTS) {
      const res = await get(`/api/v1/company/${op}?company_id=5151`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
      expect(res.body.results).toEqual([]);
    }
    const hc = await get('/api/v1/company/headcount-by-seniority?company_id=5151');
    expect(hc.body.data).toEqual({ company_id: '5151', total: 0, counts: { 'c-level': 0, vp: 0, director: 0, manager: 0, unassigned: 0 } });
  });

  it('past employees: not current there; the newest ended role; end date desc, unknown month as January, unknown end last', async () => {
    const res = await get('/api/v1/company/past-employees?company_id=4242');
    const janTie = [jan, yearEnd].sort(byId).map((p) => p.id);
    expect(ids(res)).toEqual([recent.id, twice.id, ...janTie, noEnd.id]);
    expect(ids(res)).not.toContain(boomerang.id);
    const hit = res.body.results.find((r) => r.id === twice.id)!;
    expect(hit.past_role).toEqual({ title: 'Lead', company_name: 'ACME Inc', ...startOf2(cm - 60), end_year: 2023, end_month: 5 });
    expect(res.body.results.find((r) => r.id === yearEnd.id)!.past_role).toMatchObject({ end_year: 2023, end_month: null });
    expect(res.body.results.find((r) => r.id === noEnd.id)!.past_role).toMatchObject({ end_year: null, end_month: null });
    expect(ids(res)).toEqual(pastOf(lw, '4242').map((p) => p.id));
  });

  it('hiring signals: started within the window, newest first, ties by id', async () => {
    const res = await get('/api/v1/company/hiring-signals?company_id=4242&per_page=100');
    const thisMonth = [dir, padded].sort(byId).map((p) => p.id);
    expect(ids(res)).toEqual([...thisMonth, boomerang.id, mgr.id]);
    expect(ids(res)).toEqual(hiringOf(lw, '4242').map((p) => p.id));
    const hit = res.body.results.find((r) => r.id === boomerang.id)!;
    expect(hit.joined).toEqual({ title: 'Returner', start_year: ym(cm - 1).startYear, start_month: ym(cm - 1).startMonth });
    expect(ids(await get('/api/v1/company/hiring-signals?company_id=4242&within_months=1')).sort()).toEqual(thisMonth.slice().sort());
    expect(ids(await get('/api/v1/company/hiring-signals?company_id=4242&within_months=4&per_page=100'))).toEqual([...thisMonth, boomerang.id, mgr.id, ic.id]);
  });

  describe('a start without a month (0 in the record)', () => {
    const yearOnly = mk([cur('4242', cm, 'Analyst', { startYear: now.getUTCFullYear(), startMonth: 0 })], { full_name: 'Yara Year' });
    const lw2 = useLakeWorld();
    beforeAll(async () => {
      await lw2.addCompanies(companyRecord({ company_id: '4242', name: 'Acme' }));
      await lw2.addPersons(yearOnly);
    });

    it('counts as January of the start year, and joined.start_month is null', async () => {
      const month = now.getUTCMonth();
      const wide = (await lw2.h.get(`/api/v1/company/hiring-signals?company_id=4242&within_months=${month + 1}`, lw2.key)) as unknown as Res;
      expect(ids(wide)).toEqual([yearOnly.id]);
      expect(wide.body.results[0]!.joined).toEqual({ title: 'Analyst', start_year: now.getUTCFullYear(), start_month: null });
      if (month >= 1) {
        const narrow = (await lw2.h.get(`/api/v1/company/hiring-signals?company_id=4242&within_months=${month}`, lw2.key)) as unknown as Res;
        expect(ids(narrow)).toEqual([]);
      }
    });

    it('past_role months unknown (0 in the record) are null; the end counts as January', async () => {
      const left = mk([cur('1', cm - 10), pos({ isCurrent: false, companyId: '4242', companyName: 'Acme', title: 'Clerk', startYear: 2018, startMonth: 0, endYear: 2020, endMonth: 0 })]);
      const later = mk([cur('1', cm - 10), pos({ isCurrent: false, companyId: '4242', companyName: 'Acme', title: 'Clerk', startYear: 2018, startMonth: 3, endYear: 2020, endMonth: 2 })]);
      await lw2.addPersons(left, later);
      const res = (await lw2.h.get('/api/v1/company/past-employees?company_id=4242', lw2.key)) as unknown as Res;
      expect(ids(res)).toEqual([later.id, left.id]);
      expect(res.body.results[1]!.past_role).toEqual({ title: 'Clerk', company_name: 'Acme', start_year: 2018, start_month: null, end_year: 2020, end_month: null });
    });
  });

  function startOf2(m: number) {
    const s = ym(m);
    return { start_year: s.startYear, start_month: s.startMonth };
  }
});
