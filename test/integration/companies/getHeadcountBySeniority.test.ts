/**
 * GET /company/headcount-by-seniority (getHeadcountBySeniority) on a seeded world and on hand-made
 * records; expectations computed in plain JS from the contract's semantics
 * (test/helpers/companyStaff.ts).
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { STAFF_WORLD, badStaffQueries, bySize, handMadeStaff, headcountOf, withdrawnStaff, type Res } from '../../helpers/companyStaff';
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

  describe('validation, 404 and 451', () => {
    it('400 for a missing or malformed company_id', async () => {
      for (const q of badStaffQueries(OP, lw.companies[0]!.company_id)) {
        const res = await get(`/api/v1/company/${OP}?${q}`);
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it('404 NOT_FOUND for a company the lake does not hold', async () => {
      const res = await get(`/api/v1/company/${OP}?company_id=999999999999`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    });
  });

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people are no longer counted', async () => {
      const { cid, gone } = withdrawnStaff(lw);
      const before = headcountOf(lw, cid).total;
      for (const p of new Set(gone)) {
        await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
        lw.forget(p.id);
      }
      const hc = await get(`/api/v1/company/headcount-by-seniority?company_id=${cid}`);
      expect((hc.body.data as { total: number }).total).toBe(headcountOf(lw, cid).total);
      expect(headcountOf(lw, cid).total).toBeLessThan(before);
    });

    it('451 DATA_SUBJECT_BLOCKED once the company is withdrawn (its people stay)', async () => {
      const company = lw.companies[lw.companies.length - 1]!;
      await suppress(lw.h.knex, 'company', { by: 'company_id', value: company.company_id });
      for (const cid of [company.company_id, `0${company.company_id}`]) {
        const res = await get(`/api/v1/company/${OP}?company_id=${cid}`);
        expect([OP, cid, res.status]).toEqual([OP, cid, 451]);
        expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
      }
    });
  });
});

describe('GET /company/headcount-by-seniority: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;
  const s = handMadeStaff();
  beforeAll(async () => {
    await lw.addCompanies(s.acme, s.empty);
    await lw.addPersons(...s.people);
  });

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
