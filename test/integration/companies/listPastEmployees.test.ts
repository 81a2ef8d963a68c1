/**
 * GET /company/past-employees (listPastEmployees) on a seeded world and on hand-made records;
 * expectations computed in plain JS from the contract's semantics (test/helpers/companyStaff.ts).
 */
import { companyRecord } from '../../helpers/lakeRecords';
import {
  bySize, describeStaffRejections, ids, itRefusesWithdrawnCompany, listAll, pastOf, pastRoleAt, pastRoleJson, personsById, STAFF_WORLD, useHandMadeStaff, withdrawStaff, type Res,
} from '../../helpers/companyStaff';
import { byId, personHit, useLakeWorld } from '../../helpers/lakeWorld';

const OP = 'past-employees';

describe('GET /company/past-employees on a seeded world', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('people with an ended position there and none current, newest end first, with past_role', async () => {
    for (const cid of bySize(lw).slice(0, 5)) {
      const want = pastOf(lw, cid);
      expect(want.length).toBeGreaterThan(0);
      const got = await listAll(lw, `/api/v1/company/past-employees?company_id=${cid}`);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      const k = personsById(lw);
      for (const hit of got.hits) {
        const p = k.get(hit.id as string)!;
        expect(hit).toEqual({ ...personHit(p), past_role: pastRoleJson(pastRoleAt(p, cid)!) });
      }
    }
  });

  describeStaffRejections(OP, lw);

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people disappear from the list and its total', async () => {
      const { cid } = await withdrawStaff(lw);
      expect((await listAll(lw, `/api/v1/company/past-employees?company_id=${cid}`)).ids).toEqual(pastOf(lw, cid).map((p) => p.id));
    });

    itRefusesWithdrawnCompany(OP, lw);
  });
});

describe('GET /company/past-employees: edge semantics on hand-made records', () => {
  const { lw, get, s } = useHandMadeStaff();

  it('not current there; the newest ended role; end date desc, unknown month as January, unknown end last', async () => {
    const res = await get('/api/v1/company/past-employees?company_id=4242');
    const janTie = [s.jan, s.yearEnd].sort(byId).map((p) => p.id);
    expect(ids(res)).toEqual([s.recent.id, s.twice.id, ...janTie, s.noEnd.id]);
    expect(ids(res)).not.toContain(s.boomerang.id);
    const hit = res.body.results.find((r) => r.id === s.twice.id)!;
    expect(hit.past_role).toEqual({ title: 'Lead', company_name: 'ACME Inc', ...s.startOf2(s.cm - 60), end_year: 2023, end_month: 5 });
    expect(res.body.results.find((r) => r.id === s.yearEnd.id)!.past_role).toMatchObject({ end_year: 2023, end_month: null });
    expect(res.body.results.find((r) => r.id === s.noEnd.id)!.past_role).toMatchObject({ end_year: null, end_month: null });
    expect(ids(res)).toEqual(pastOf(lw, '4242').map((p) => p.id));
  });

  it('a known company with nobody: 200, empty', async () => {
    const res = await get('/api/v1/company/past-employees?company_id=5151');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });

  describe('months unknown (0 in the record)', () => {
    const yearOnly = s.mk([s.cur('4242', s.cm, 'Analyst', { startYear: s.now.getUTCFullYear(), startMonth: 0 })], { full_name: 'Yara Year' });
    const lw2 = useLakeWorld();
    beforeAll(async () => {
      await lw2.addCompanies(companyRecord({ company_id: '4242', name: 'Acme' }));
      await lw2.addPersons(yearOnly);
    });

    it('past_role months unknown (0 in the record) are null; the end counts as January', async () => {
      const left = s.mk([s.cur('1', s.cm - 10), s.pos({ isCurrent: false, companyId: '4242', companyName: 'Acme', title: 'Clerk', startYear: 2018, startMonth: 0, endYear: 2020, endMonth: 0 })]);
      const later = s.mk([s.cur('1', s.cm - 10), s.pos({ isCurrent: false, companyId: '4242', companyName: 'Acme', title: 'Clerk', startYear: 2018, startMonth: 3, endYear: 2020, endMonth: 2 })]);
      await lw2.addPersons(left, later);
      const res = (await lw2.h.get('/api/v1/company/past-employees?company_id=4242', lw2.key)) as unknown as Res;
      expect(ids(res)).toEqual([later.id, left.id]);
      expect(res.body.results[1]!.past_role).toEqual({ title: 'Clerk', company_name: 'Acme', start_year: 2018, start_month: null, end_year: 2020, end_month: null });
    });
  });
});
