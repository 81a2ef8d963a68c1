/**
 * GET /company/hiring-signals (listHiringSignals) on a seeded world and on hand-made records;
 * expectations computed in plain JS from the contract's semantics (test/helpers/companyStaff.ts).
 */
import { companyRecord } from '../../helpers/lakeRecords';
import {
  bySize, describeStaffRejections, hiringOf, ids, itRefusesWithdrawnCompany, joinedJson, listAll, personsById, STAFF_WORLD, useHandMadeStaff, withdrawStaff, type Res,
} from '../../helpers/companyStaff';
import { byId, personHit, useLakeWorld } from '../../helpers/lakeWorld';

const OP = 'hiring-signals';

describe('GET /company/hiring-signals on a seeded world', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('current employees who started within the window (default 3), newest first, with joined', async () => {
    let seen = 0;
    for (const cid of bySize(lw).slice(0, 8)) {
      const want = hiringOf(lw, cid);
      seen += want.length;
      const got = await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}`);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      const k = personsById(lw);
      for (const hit of got.hits) {
        const p = k.get(hit.id as string)!;
        expect(hit).toEqual({ ...personHit(p), joined: joinedJson(p) });
      }
    }
    expect(seen).toBeGreaterThan(5);
  });

  it.each([1, 6, 12, 24])('within_months=%i', async (within) => {
    const cid = bySize(lw)[0]!;
    const want = hiringOf(lw, cid, within);
    const got = await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}&within_months=${within}`);
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
  });

  describeStaffRejections(OP, lw);

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people disappear from the list and its total', async () => {
      const { cid } = await withdrawStaff(lw);
      expect((await listAll(lw, `/api/v1/company/hiring-signals?company_id=${cid}&within_months=24`)).ids).toEqual(hiringOf(lw, cid, 24).map((p) => p.id));
    });

    itRefusesWithdrawnCompany(OP, lw);
  });
});

describe('GET /company/hiring-signals: edge semantics on hand-made records', () => {
  const { lw, get, s } = useHandMadeStaff();

  it('started within the window, newest first, ties by id', async () => {
    const res = await get('/api/v1/company/hiring-signals?company_id=4242&per_page=100');
    const thisMonth = [s.dir, s.padded].sort(byId).map((p) => p.id);
    expect(ids(res)).toEqual([...thisMonth, s.boomerang.id, s.mgr.id]);
    expect(ids(res)).toEqual(hiringOf(lw, '4242').map((p) => p.id));
    const hit = res.body.results.find((r) => r.id === s.boomerang.id)!;
    expect(hit.joined).toEqual({ title: 'Returner', start_year: s.ym(s.cm - 1).startYear, start_month: s.ym(s.cm - 1).startMonth });
    expect(ids(await get('/api/v1/company/hiring-signals?company_id=4242&within_months=1')).sort()).toEqual(thisMonth.slice().sort());
    expect(ids(await get('/api/v1/company/hiring-signals?company_id=4242&within_months=4&per_page=100'))).toEqual([...thisMonth, s.boomerang.id, s.mgr.id, s.ic.id]);
  });

  it('a known company with nobody: 200, empty', async () => {
    const res = await get('/api/v1/company/hiring-signals?company_id=5151');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });

  describe('a start without a month (0 in the record)', () => {
    const yearOnly = s.mk([s.cur('4242', s.cm, 'Analyst', { startYear: s.now.getUTCFullYear(), startMonth: 0 })], { full_name: 'Yara Year' });
    const lw2 = useLakeWorld();
    beforeAll(async () => {
      await lw2.addCompanies(companyRecord({ company_id: '4242', name: 'Acme' }));
      await lw2.addPersons(yearOnly);
    });

    it('counts as January of the start year, and joined.start_month is null', async () => {
      const month = s.now.getUTCMonth();
      const wide = (await lw2.h.get(`/api/v1/company/hiring-signals?company_id=4242&within_months=${month + 1}`, lw2.key)) as unknown as Res;
      expect(ids(wide)).toEqual([yearOnly.id]);
      expect(wide.body.results[0]!.joined).toEqual({ title: 'Analyst', start_year: s.now.getUTCFullYear(), start_month: null });
      if (month >= 1) {
        const narrow = (await lw2.h.get(`/api/v1/company/hiring-signals?company_id=4242&within_months=${month}`, lw2.key)) as unknown as Res;
        expect(ids(narrow)).toEqual([]);
      }
    });
  });
});
