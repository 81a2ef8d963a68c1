/**
 * GET /company/decision-makers (listDecisionMakers) on a seeded world and on hand-made records;
 * expectations computed in plain JS from the contract's semantics (test/helpers/companyStaff.ts).
 */
import { suppress } from '../../../src/domain/lake/suppression';
import {
  DECIDERS, STAFF_WORLD, badStaffQueries, bySize, decisionMakersOf, handMadeStaff, ids, listAll, withdrawnStaff, type Res,
} from '../../helpers/companyStaff';
import { useLakeWorld } from '../../helpers/lakeWorld';

const OP = 'decision-makers';

describe('GET /company/decision-makers on a seeded world', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('current employees in c-level, vp and director, in staff order', async () => {
    for (const cid of bySize(lw).slice(0, 6)) {
      const want = decisionMakersOf(lw, cid);
      const got = await listAll(lw, `/api/v1/company/decision-makers?company_id=${cid}`);
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
      for (const hit of got.hits) expect(DECIDERS).toContain(hit.seniority);
    }
    expect(decisionMakersOf(lw, bySize(lw)[0]!).length).toBeGreaterThan(5);
  });

  describe('validation, 404 and 451', () => {
    it('400 for a missing or malformed company_id and bad paging', async () => {
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
    it('withdrawn people disappear from the list and its total', async () => {
      const { cid, gone } = withdrawnStaff(lw);
      for (const p of new Set(gone)) {
        await suppress(lw.h.knex, 'person', { by: 'id', value: p.id });
        lw.forget(p.id);
      }
      expect((await listAll(lw, `/api/v1/company/decision-makers?company_id=${cid}`)).ids).toEqual(decisionMakersOf(lw, cid).map((p) => p.id));
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

describe('GET /company/decision-makers: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;
  const s = handMadeStaff();
  beforeAll(async () => {
    await lw.addCompanies(s.acme, s.empty);
    await lw.addPersons(...s.people);
  });

  it('c-level, vp and director only, in staff order', async () => {
    expect(ids(await get('/api/v1/company/decision-makers?company_id=4242'))).toEqual([s.ceo.id, s.dir.id]);
  });

  it('a known company with nobody: 200, empty', async () => {
    const res = await get('/api/v1/company/decision-makers?company_id=5151');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });
});
