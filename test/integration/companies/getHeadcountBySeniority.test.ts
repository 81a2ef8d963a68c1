/**
 * GET /company/headcount-by-seniority (getHeadcountBySeniority) on a seeded world and on hand-made
 * records; expectations computed in plain JS from the contract's semantics
 * (test/helpers/companyStaff.ts).
 */
import {
  bySize, describeStaffRejections, headcountOf, itRefusesWithdrawnCompany, STAFF_WORLD, useHandMadeStaff, withdrawnStaff, withdrawStaff, type Res,
} from '../../helpers/companyStaff';
import { useLakeWorld } from '../../helpers/lakeWorld';

const OP = 'headcount-by-seniority';

describe('GET /company/headcount-by-seniority on a seeded world', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('counts current employees by band, unassigned for no band, total the sum', async () => {
    for (const cid of bySize(lw).slice(0, 10)) {
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

  describeStaffRejections(OP, lw);

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people are no longer counted', async () => {
      const { cid } = withdrawnStaff(lw);
      const before = headcountOf(lw, cid).total;
      await withdrawStaff(lw);
      const hc = await get(`/api/v1/company/headcount-by-seniority?company_id=${cid}`);
      expect((hc.body.data as { total: number }).total).toBe(headcountOf(lw, cid).total);
      expect(headcountOf(lw, cid).total).toBeLessThan(before);
    });

    itRefusesWithdrawnCompany(OP, lw);
  });
});

describe('GET /company/headcount-by-seniority: edge semantics on hand-made records', () => {
  const { lw, get, s } = useHandMadeStaff();

  it('counts the current staff by band, whatever the company_id padding', async () => {
    const hc = await get('/api/v1/company/headcount-by-seniority?company_id=04242');
    expect(hc.status).toBe(200);
    expect((hc.body.data as { total: number }).total).toBe(6);
    expect((hc.body.data as { counts: unknown }).counts).toEqual({ 'c-level': 1, vp: 0, director: 1, manager: 1, unassigned: 3 });
  });

  it('a known company with nobody: 200, all zeros', async () => {
    const hc = await get('/api/v1/company/headcount-by-seniority?company_id=5151');
    expect(hc.body.data).toEqual({ company_id: '5151', total: 0, counts: { 'c-level': 0, vp: 0, director: 0, manager: 0, unassigned: 0 } });
  });
});
