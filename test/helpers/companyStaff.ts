/**
 * Shared fixtures of the company staff lists (listCurrentEmployees, listPastEmployees,
 * getHeadcountBySeniority, listHiringSignals, listDecisionMakers): the seeded world they all read,
 * the hand-made records of their edge cases, and the oracles that compute the expected answers in
 * plain JS from the contract's semantics.
 */
import type { PersonRecord } from '../../src/model/records';
import { suppress } from '../../src/domain/lake/suppression';
import { companyRecord, personRecord } from './lakeRecords';
import { SHARED_WORLD, byId, byStaff, currentPosition, monthIndex, sameCompanyId, useLakeWorld, windowStart, type LakeWorld } from './lakeWorld';

export type Res = {
  status: number;
  body: { results: Record<string, unknown>[]; total: number; page: number; per_page: number; code?: string; data?: unknown };
};
export const ids = (res: Res) => res.body.results.map((r) => r.id as string);
export type Pos = PersonRecord['positions'][number];

/** The world every staff-list file reads (each file gets its own copy, cloned from one template). */
export const STAFF_WORLD = SHARED_WORLD;

export const LISTS = ['current-employees', 'past-employees', 'hiring-signals', 'decision-makers'] as const;
export const ALL_OPS = [...LISTS, 'headcount-by-seniority'] as const;
export type StaffOp = (typeof ALL_OPS)[number];

// ---- Oracles -------------------------------------------------------------------------------------
export const currentOf = (lw: LakeWorld, companyId: string) =>
  lw.persons.filter((p) => sameCompanyId(p.current_company_id, companyId)).sort(byStaff);

export const DECIDERS = ['c-level', 'vp', 'director'];
export const decisionMakersOf = (lw: LakeWorld, companyId: string) =>
  currentOf(lw, companyId).filter((p) => DECIDERS.includes(p.seniority as string));

export function headcountOf(lw: LakeWorld, companyId: string) {
  const counts = { 'c-level': 0, vp: 0, director: 0, manager: 0, unassigned: 0 } as Record<string, number>;
  for (const p of currentOf(lw, companyId)) counts[p.seniority ?? 'unassigned']!++;
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), counts };
}

export const pastRoleAt = (p: PersonRecord, companyId: string): Pos | undefined =>
  p.positions.some((x) => x.isCurrent && sameCompanyId(x.companyId, companyId))
    ? undefined
    : p.positions.find((x) => !x.isCurrent && sameCompanyId(x.companyId, companyId));
const endKey = (x: Pos) => (x.endYear == null || x.endYear < 1 ? null : monthIndex(x.endYear, x.endMonth));
export function pastOf(lw: LakeWorld, companyId: string) {
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
export const pastRoleJson = (x: Pos) => ({
  title: x.title ?? null,
  company_name: x.companyName,
  start_year: x.startYear >= 1 ? x.startYear : null,
  start_month: month(x.startMonth),
  end_year: x.endYear != null && x.endYear >= 1 ? x.endYear : null,
  end_month: month(x.endMonth),
});

const startOf = (p: PersonRecord) => monthIndex(currentPosition(p)!.startYear, currentPosition(p)!.startMonth);
export function hiringOf(lw: LakeWorld, companyId: string, within = 3) {
  const from = windowStart(within);
  return currentOf(lw, companyId)
    .filter((p) => currentPosition(p) && startOf(p) >= from)
    .sort((a, b) => startOf(b) - startOf(a) || byId(a, b));
}
export const joinedJson = (p: PersonRecord) => {
  const c = currentPosition(p)!;
  return { title: c.title ?? null, start_year: c.startYear, start_month: month(c.startMonth) };
};

/** Every page at per_page 100, checked for a consistent total and no repeats. */
export async function listAll(lw: LakeWorld, path: string) {
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

/** Companies of the world, most current employees first. */
export function bySize(lw: LakeWorld): string[] {
  const n = new Map<string, number>();
  for (const p of lw.persons) n.set(p.current_company_id!, (n.get(p.current_company_id!) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

export const personsById = (lw: LakeWorld) => new Map(lw.persons.map((p) => [p.id, p]));

/**
 * The people a "withdrawn people disappear" test suppresses at the second largest company: a
 * current employee, a recent hire and a past employee. The caller suppresses them and then checks
 * its own list.
 */
export function withdrawnStaff(lw: LakeWorld): { cid: string; gone: PersonRecord[] } {
  const cid = bySize(lw)[1]!;
  return { cid, gone: [currentOf(lw, cid)[0]!, hiringOf(lw, cid, 24)[0]!, pastOf(lw, cid)[0]!] };
}

/** Suppresses the people of withdrawnStaff in the lake and drops them from the world. */
export async function withdrawStaff(lw: LakeWorld): Promise<{ cid: string; gone: PersonRecord[] }> {
  const { cid, gone } = withdrawnStaff(lw);
  for (const p of new Set(gone)) {
    await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
    lw.forget(p.id);
  }
  return { cid, gone };
}

const getStaff = (lw: LakeWorld, op: StaffOp, query: string) => lw.h.get(`/api/v1/company/${op}?${query}`, lw.key) as unknown as Promise<Res>;

/** The 400 and 404 answers every staff operation gives (badStaffQueries, a company the lake does not hold). */
export function describeStaffRejections(op: StaffOp, lw: LakeWorld): void {
  describe('validation and 404', () => {
    it('400 VALIDATION_ERROR for a missing or malformed company_id and the operation\'s bad parameters', async () => {
      for (const q of badStaffQueries(op, lw.companies[0]!.company_id)) {
        const res = await getStaff(lw, op, q);
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it('404 NOT_FOUND for a company the lake does not hold', async () => {
      const res = await getStaff(lw, op, 'company_id=999999999999');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });
  });
}

/** 451 once the world's last company is withdrawn, by its id and a zero-padded one (changes the world: declare it last). */
export function itRefusesWithdrawnCompany(op: StaffOp, lw: LakeWorld): void {
  it('451 DATA_SUBJECT_BLOCKED once the company is withdrawn (its people stay)', async () => {
    const company = lw.companies[lw.companies.length - 1]!;
    await suppress(lw.h.knex, 'company', { by: 'company_id', value: company.company_id });
    for (const cid of [company.company_id, `0${company.company_id}`]) {
      const res = await getStaff(lw, op, `company_id=${cid}`);
      expect([op, cid, res.status]).toEqual([op, cid, 451]);
      expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
    }
  });
}

/** The validation cases of the staff operations (400 VALIDATION_ERROR each). */
export function badStaffQueries(op: StaffOp, cid: string): string[] {
  const bad = ['', 'company_id=', 'company_id=abc', 'company_id=12345678901234567890', `company_id=${cid}&nope=1`, `company_id=1&company_id=2`];
  if (op !== 'headcount-by-seniority') bad.push(`company_id=${cid}&per_page=101`, `company_id=${cid}&page=0`);
  if (op === 'hiring-signals') bad.push(`company_id=${cid}&within_months=0`, `company_id=${cid}&within_months=25`);
  return bad;
}

// ---- Hand-made records ---------------------------------------------------------------------------
/**
 * Company 4242 (Acme, also written 04242) with current staff in every band, people who left it in
 * every way the contract distinguishes, and company 5151 with nobody. Month arithmetic is relative
 * to the current UTC month.
 */
export function handMadeStaff() {
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

  const startOf2 = (m: number) => {
    const s = ym(m);
    return { start_year: s.startYear, start_month: s.startMonth };
  };
  return {
    now, cm, ym, pos, cur, mk, acme, empty, people, startOf2,
    ceo, dir, mgr, ic, padded, twice, boomerang, noEnd, yearEnd, jan, recent,
  };
}

/** A lake holding the hand-made staff records (companies 4242 and 5151), for a file's edge cases. */
export function useHandMadeStaff() {
  const lw = useLakeWorld();
  const s = handMadeStaff();
  beforeAll(async () => {
    await lw.addCompanies(s.acme, s.empty);
    await lw.addPersons(...s.people);
  });
  return { lw, s, get: (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res> };
}
