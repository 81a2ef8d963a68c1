/**
 * GET /person/job-changes (listJobChanges) on a seeded world and on hand-made records; expectations
 * computed in plain JS from the contract's semantics (test/helpers/personRelationships.ts).
 */
import type { PersonRecord } from '../../../src/model/records';
import { suppress } from '../../../src/domain/lake/suppression';
import { personRecord } from '../../helpers/lakeRecords';
import { pageOf, personHit, previousPosition, useLakeWorld } from '../../helpers/lakeWorld';
import {
  RELATIONSHIP_WORLD, enc, handMadeRelationships, ids, jobChangeOf, jobChanges, listAll, withdrawThree, type Res,
} from '../../helpers/personRelationships';

describe('GET /person/job-changes on a seeded world', () => {
  const lw = useLakeWorld({ world: RELATIONSHIP_WORLD });
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

  describe('withdrawn profiles (run last: they change the world)', () => {
    it('withdrawn people disappear from job changes, and from the total', async () => {
      // As in the other relationship files: persons[10] first, then the three of withdrawThree.
      await suppress(lw.h.knex, 'person', { by: 'id', value: lw.persons[10]!.id });
      lw.forget(lw.persons[10]!.id);
      const { changer } = await withdrawThree(lw, (id) => suppress(lw.h.knex, 'person', { by: 'id', value: id }));
      const got = await listAll(lw, '/api/v1/person/job-changes?within_months=24');
      expect(got.ids).toEqual(jobChanges(lw, { within: 24 }).map((p) => p.id));
      expect(got.ids).not.toContain(changer.id);
    });
  });
});

describe('GET /person/job-changes: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const r = handMadeRelationships();
  const { now } = r;
  beforeAll(() => lw.addPersons(...r.records));
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('the hand-checked list for the default window', async () => {
    const res = await get('/api/v1/person/job-changes?per_page=100');
    expect(ids(res)).toEqual(jobChanges(lw).map((p) => p.id));
    if (now.getUTCMonth() >= 3) {
      // This month: tieA and tieB, by id; then last month; then two months ago.
      const thisMonth = [r.tieA, r.tieB].map((p) => p.id).sort();
      expect(ids(res)).toEqual([...thisMonth, r.lastMonth.id, r.paddedPrev.id]);
    }
  });

  it('same employer (by id, leading zeros, or by name) is not a change; no previous or no current position neither', async () => {
    const res = await get('/api/v1/person/job-changes?within_months=24&per_page=100');
    for (const p of [r.sameEmployer, r.zerosSame, r.byNameSame, r.firstJob, r.noCurrent]) expect(ids(res)).not.toContain(p.id);
    for (const p of [r.tieA, r.tieB, r.lastMonth, r.tooOld, r.paddedPrev]) expect(ids(res)).toContain(p.id);
  });

  it('the window counts whole months back from the current UTC month', async () => {
    expect(ids(await get('/api/v1/person/job-changes?within_months=3&per_page=100'))).not.toContain(r.tooOld.id);
    expect(ids(await get('/api/v1/person/job-changes?within_months=4&per_page=100'))).toContain(r.tooOld.id);
    expect(ids(await get('/api/v1/person/job-changes?within_months=1&per_page=100')).sort()).toEqual([r.tieA, r.tieB].map((p) => p.id).sort());
    expect(ids(await get('/api/v1/person/job-changes?within_months=2&per_page=100'))).toEqual([...[r.tieA, r.tieB].map((p) => p.id).sort(), r.lastMonth.id]);
  });

  it('previous employer filters use the previous position, by number or by name', async () => {
    expect(ids(await get('/api/v1/person/job-changes?previous_company_id=100&per_page=100')).sort()).toEqual(
      [r.tieA, r.tieB, r.lastMonth, r.paddedPrev].map((p) => p.id).sort(),
    );
    expect(ids(await get('/api/v1/person/job-changes?previous_company=old%20co%20RENAMED'))).toEqual([r.paddedPrev.id]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=NEW%20CO'))).toEqual([]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=old%20co&previous_company_id=999'))).toEqual([]);
    expect(ids(await get('/api/v1/person/job-changes?previous_company=Old%20Co%20Renamed&previous_company_id=100&per_page=100')).sort()).toEqual(
      [r.tieA, r.tieB, r.lastMonth, r.paddedPrev].map((p) => p.id).sort(),
    );
  });

  it('job_change of a plain case', async () => {
    const res = await get('/api/v1/person/job-changes?previous_company_id=100&within_months=2&per_page=100');
    const hit = res.body.results.find((x) => x.id === r.lastMonth.id) as unknown as { job_change: Record<string, unknown> };
    const s = r.ym(r.cm - 1);
    expect(hit.job_change).toEqual({
      previous_company: 'Old Co', previous_company_id: '100', previous_title: 'Engineer',
      new_company: 'New Co', new_company_id: '200', new_title: 'Lead', started_year: s.startYear, started_month: s.startMonth,
    });
  });
});

describe('GET /person/job-changes: a previous position without a company ID, a start without a month', () => {
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

  it('an unknown start month counts as January, and started_month is null', async () => {
    const month = now.getUTCMonth(); // 0-based: January of this year is `month` months back
    const inside = await get(`/api/v1/person/job-changes?within_months=${month + 1}&previous_company_id=100&per_page=100`);
    const hit = inside.body.results.find((x) => x.id === yearOnly.id) as unknown as { job_change: Record<string, unknown> };
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
