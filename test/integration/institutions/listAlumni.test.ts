/**
 * GET /institution/alumni on a dedicated seeded world and hand-made records; expectations computed
 * here in plain JS from the contract's semantics.
 */
import type { PersonRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { personRecord } from '../../helpers/lakeRecords';
import { SHARED_WORLD, byId, pageOf, personHit, useLakeWorld, type LakeWorld } from '../../helpers/lakeWorld';

const enc = encodeURIComponent;
type Res = { status: number; body: { results: Record<string, unknown>[]; total: number; page: number; per_page: number; code?: string } };
const ids = (res: Res) => res.body.results.map((r) => r.id as string);

const alumniOf = (lw: LakeWorld, school: string) =>
  lw.persons.filter((p) => p.educations.some((e) => e.schoolName.toLowerCase() === school.toLowerCase())).sort(byId);

async function listAll(lw: LakeWorld, school: string) {
  const out: string[] = [];
  let total = -1;
  for (let page = 1; page <= 40; page++) {
    const res = (await lw.h.get(`/api/v1/institution/alumni?school=${enc(school)}&per_page=100&page=${page}`, lw.key)) as unknown as Res;
    expect(res.status).toBe(200);
    if (total === -1) total = res.body.total;
    expect(res.body.total).toBe(total);
    out.push(...ids(res));
    if (res.body.results.length < 100) break;
  }
  expect(new Set(out).size).toBe(out.length);
  return { ids: out, total };
}

describe('GET /institution/alumni on a seeded world', () => {
  const lw = useLakeWorld({ world: SHARED_WORLD });
  const get = (q: string) => lw.h.get(`/api/v1/institution/alumni?${q}`, lw.key) as unknown as Promise<Res>;
  const schools = () => {
    const n = new Map<string, number>();
    for (const p of lw.persons) for (const s of new Set(p.educations.map((e) => e.schoolName))) n.set(s, (n.get(s) ?? 0) + 1);
    return [...n.entries()].sort((a, b) => b[1] - a[1]);
  };

  it('every alumnus of the largest school, most recently verified first, then id, over all pages', async () => {
    const [[school, count]] = schools() as [[string, number]];
    expect(count).toBeGreaterThan(100);
    const want = alumniOf(lw, school);
    const got = await listAll(lw, school);
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
  });

  it('hits are the lightweight fields of the stored records', async () => {
    const [[school]] = schools() as [[string, number]];
    const res = await get(`school=${enc(school)}&per_page=50`);
    const byKey = new Map(lw.persons.map((p) => [p.id, p]));
    for (const hit of res.body.results) expect(hit).toEqual(personHit(byKey.get(hit.id as string)!));
  });

  it('the school name is matched exactly but case-insensitively', async () => {
    const ascii = schools().find(([s, n]) => /^[A-Za-z ]+$/.test(s) && n > 5)![0];
    const want = alumniOf(lw, ascii).map((p) => p.id);
    for (const variant of [ascii.toUpperCase(), ascii.toLowerCase()]) {
      expect((await listAll(lw, variant)).ids).toEqual(want);
    }
    const partial = ascii.split(' ').slice(0, -1).join(' ') || ascii.slice(0, -1);
    expect((await get(`school=${enc(partial)}`)).body.total).toBe(alumniOf(lw, partial).length);
  });

  it('exactly: surrounding spaces are part of the name (no match)', async () => {
    const ascii = schools().find(([s, n]) => /^[A-Za-z ]+$/.test(s) && n > 5)![0];
    expect(alumniOf(lw, `${ascii} `)).toHaveLength(0);
    expect((await get(`school=${enc(`${ascii} `)}`)).body.total).toBe(0);
    expect((await get(`school=${enc(` ${ascii}`)}`)).body.total).toBe(0);
  });

  it('a few more schools, with non-ASCII names as written', async () => {
    for (const [school] of schools().filter(([s]) => /[^\x00-\x7f]/.test(s)).slice(0, 2).concat(schools().slice(5, 8))) {
      const want = alumniOf(lw, school);
      const got = await listAll(lw, school);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    }
  });

  it('an unknown school is a 200 with no results', async () => {
    const res = await get('school=UT%20Austin');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });

  it('pages: default size, the last partial page, a page past the end, per_page 1', async () => {
    const [school] = schools().find(([, n]) => n > 30 && n % 25 !== 0)!;
    const want = alumniOf(lw, school);
    const last = Math.ceil(want.length / 25);
    const seen: string[] = [];
    for (let page = 1; page <= last; page++) {
      const res = await get(`school=${enc(school)}&page=${page}`);
      expect(res.body.page).toBe(page);
      expect(res.body.per_page).toBe(25);
      expect(ids(res)).toEqual(pageOf(want, page, 25).map((p) => p.id));
      seen.push(...ids(res));
    }
    expect(seen).toEqual(want.map((p) => p.id));
    const past = await get(`school=${enc(school)}&page=${last + 1}`);
    expect(past.body.results).toEqual([]);
    expect(past.body.total).toBe(want.length);
    expect(ids(await get(`school=${enc(school)}&per_page=1&page=${want.length}`))).toEqual([want[want.length - 1]!.id]);
  });

  it.each([['no school', ''], ['an empty school', 'school='], ['per_page 0', 'school=X&per_page=0'], ['page 1001', 'school=X&page=1001'], ['an unknown parameter', 'school=X&city=Austin'], ['a repeated school', 'school=a&school=b']])(
    '400 VALIDATION_ERROR: %s',
    async (_name, q) => {
      const res = await get(q);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    },
  );

  it('withdrawn people disappear from the list and the total', async () => {
    const [[school]] = schools() as [[string, number]];
    const before = alumniOf(lw, school);
    const gone = before.slice(0, 2);
    for (const p of gone) {
      await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
      lw.forget(p.id);
    }
    const got = await listAll(lw, school);
    expect(got.total).toBe(before.length - 2);
    expect(got.ids).toEqual(alumniOf(lw, school).map((p) => p.id));
    for (const p of gone) expect(got.ids).not.toContain(p.id);
  });
});

describe('GET /institution/alumni: hand-made records', () => {
  const lw = useLakeWorld();
  const base = personRecord();
  const edu = (schoolName: string) => ({ ...base.educations[0]!, schoolName });
  const mk = (schools: string[], fetched_at: string): PersonRecord =>
    personRecord({ educations: schools.map(edu), education_schools: schools, fetched_at });
  const twice = mk(['The University of Texas at Austin', 'the university of texas at austin'], '2026-01-01T00:00:00Z');
  const once = mk(['Anna University', 'The University of Texas at Austin'], '2026-03-01T00:00:00Z');
  const tieA = mk(['THE UNIVERSITY OF TEXAS AT AUSTIN'], '2026-02-01T00:00:00Z');
  const tieB = mk(['The University of Texas at Austin'], '2026-02-01T00:00:00Z');
  const other = mk(['UT Austin'], '2026-04-01T00:00:00Z');
  beforeAll(() => lw.addPersons(twice, once, tieA, tieB, other));

  it('matches exactly, case-insensitively, once per person, ordered by id (never by fetched_at)', async () => {
    const res = (await lw.h.get(`/api/v1/institution/alumni?school=${enc('the university of texas at austin')}`, lw.key)) as unknown as Res;
    expect(res.body.total).toBe(4);
    expect(ids(res)).toEqual([once, tieA, tieB, twice].sort(byId).map((p) => p.id));
    const ut = (await lw.h.get('/api/v1/institution/alumni?school=ut%20austin', lw.key)) as unknown as Res;
    expect(ids(ut)).toEqual([other.id]);
  });
});
