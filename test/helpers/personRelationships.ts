/**
 * Shared fixtures of the lists around a person (listColleagues, listSimilarPeople, listJobChanges):
 * the seeded world they read, the hand-made records of their edge cases, and the oracles that
 * compute the expected answers in plain JS from the contract's semantics.
 */
import type { PersonRecord } from '../../src/model/records';
import { suppress } from '../../src/domain/lake/suppression';
import { personRecord } from './lakeRecords';
import {
  SHARED_WORLD, byId, byStaff, currentPosition, monthIndex, previousPosition, sameCompanyId, windowStart, type LakeWorld,
} from './lakeWorld';

export const enc = encodeURIComponent;
export type Res = { status: number; body: { results: { id: string }[]; total: number; page: number; per_page: number; code?: string } };
export const ids = (res: Res) => res.body.results.map((r) => r.id);
type Pos = PersonRecord['positions'][number];

/** The world every relationship file reads (each file gets its own copy, cloned from one template). */
export const RELATIONSHIP_WORLD = SHARED_WORLD;

/** Every page at per_page 100, checked for a consistent total and no repeats. */
export async function listAll(lw: LakeWorld, path: string): Promise<{ ids: string[]; total: number; hits: Record<string, unknown>[] }> {
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
export const colleaguesOf = (lw: LakeWorld, s: PersonRecord) =>
  s.current_company_id == null
    ? []
    : lw.persons.filter((p) => p.id !== s.id && sameCompanyId(p.current_company_id, s.current_company_id)).sort(byStaff);

export const similarTo = (lw: LakeWorld, s: PersonRecord) =>
  lw.persons
    .filter(
      (p) =>
        p.id !== s.id &&
        (s.seniority == null || p.seniority === s.seniority) &&
        (s.current_company_industry == null || p.current_company_industry === s.current_company_industry) &&
        (s.geo_country_code == null || p.geo_country_code?.toUpperCase() === s.geo_country_code.toUpperCase()),
    )
    .sort(byId);

function employerDiffers(cur: Pos, prev: Pos): boolean {
  const numeric = (id: string | null | undefined) => id != null && /^[0-9]{1,18}$/.test(id);
  if (numeric(cur.companyId) && numeric(prev.companyId)) return !sameCompanyId(cur.companyId, prev.companyId);
  return (cur.companyName ?? '').toLowerCase() !== (prev.companyName ?? '').toLowerCase();
}
const startOf = (p: PersonRecord) => {
  const c = currentPosition(p)!;
  return monthIndex(c.startYear, c.startMonth);
};
export function jobChanges(lw: LakeWorld, o: { within?: number; previousId?: string; previousName?: string } = {}) {
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
export function jobChangeOf(p: PersonRecord) {
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

// ---- Subjects in the seeded world ------------------------------------------------------------------
function companySizes(lw: LakeWorld): Map<string, number> {
  const n = new Map<string, number>();
  for (const p of lw.persons) n.set(p.current_company_id!, (n.get(p.current_company_id!) ?? 0) + 1);
  return n;
}
/** A person at a company with more than 100 other employees (so results span pages). */
export const bigSubject = (lw: LakeWorld) => {
  const sizes = companySizes(lw);
  return lw.persons.find((p) => (sizes.get(p.current_company_id!) ?? 0) > 120)!;
};
export const midSubject = (lw: LakeWorld) => {
  const sizes = companySizes(lw);
  return lw.persons.find((p) => {
    const n = sizes.get(p.current_company_id!) ?? 0;
    return n > 30 && n < 90 && n % 25 !== 1;
  })!;
};

/** The invalid subject queries of colleagues and similar (400 VALIDATION_ERROR each). */
export const badSubjectQueries = (lw: LakeWorld) => [
  '',
  'page=1',
  `network_url=${enc('https://www.linkedin.com/company/acme/')}`,
  `network_url=${enc('https://www.linkedin.com/in/')}`,
  'network_url=not-a-url',
  'id=42',
  'username=',
  `id=${lw.persons[0]!.id}&per_page=0`,
  `id=${lw.persons[0]!.id}&page=1001`,
];

/**
 * The "withdrawn people disappear" case, the same in each file: a colleague of midSubject, the
 * first person similar to a US manager and the most recent job changer are suppressed (after the
 * withdrawn-subject test has suppressed persons[10]); each file then checks its own list.
 */
/** The 400 and 404 answers of every list about a subject person; `path(query)` is the list's URL. */
export function describeSubjectRejections(lw: LakeWorld, path: (query: string) => string): void {
  describe('subjects: 400, 404', () => {
    it('400 for a missing or malformed identifier', async () => {
      for (const q of badSubjectQueries(lw)) {
        const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it('404 for a subject the lake does not hold, by every identifier', async () => {
      const ghost = personRecord();
      for (const q of [`id=${ghost.id}`, `username=${ghost.username}`, `network_url=${enc(ghost.network_url)}`]) {
        const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
    });
  });
}

/** 451 for a withdrawn subject by every identifier (withdraws a person: declare it among the last cases). */
export function itRefusesWithdrawnSubject(lw: LakeWorld, path: (query: string) => string): void {
  it('a withdrawn subject is 451 by every identifier', async () => {
    const s = lw.persons[10]!;
    await suppress(lw.h.knex, 'person', { by: 'id', value: s.id });
    lw.forget(s.id);
    for (const q of [`id=${s.id}`, `username=${s.username}`, `network_url=${enc(s.network_url)}`]) {
      const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
      expect(res.status).toBe(451);
      expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
    }
  });
}

export async function withdrawThree(
  lw: LakeWorld,
  suppressPerson: (id: string) => Promise<unknown>,
): Promise<{ s: PersonRecord; colleague: PersonRecord; similarSubject: PersonRecord; similar: PersonRecord; changer: PersonRecord }> {
  const s = midSubject(lw);
  const colleague = colleaguesOf(lw, s)[0]!;
  const similarSubject = lw.persons.find((p) => p.seniority === 'manager' && p.geo_country_code === 'US')!;
  const similar = similarTo(lw, similarSubject)[0]!;
  const changer = jobChanges(lw, { within: 24 })[0]!;
  for (const p of [colleague, similar, changer]) {
    if (!lw.persons.includes(p)) continue;
    await suppressPerson(p.id);
    lw.forget(p.id);
  }
  return { s, colleague, similarSubject, similar, changer };
}

// ---- Hand-made records ---------------------------------------------------------------------------
/** Job changes in every shape the contract distinguishes, and colleagues/similar subjects with missing values. */
export function handMadeRelationships() {
  const now = new Date();
  const cm = now.getUTCFullYear() * 12 + now.getUTCMonth(); // current month index
  const ym = (m: number) => ({ startYear: Math.floor(m / 12), startMonth: (m % 12) + 1 });
  const base = personRecord();
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

  return {
    now, cm, ym,
    records: [...all, unemployed, alpha, upper, accent, boss, vp1, vp2],
    tieA, tieB, lastMonth, sameEmployer, zerosSame, byNameSame, tooOld, firstJob, noCurrent, paddedPrev,
    unemployed, alpha, upper, accent, boss, vp1, vp2,
  };
}
