/**
 * GET /company/decision-makers (listDecisionMakers) on a seeded world and on hand-made records;
 * expectations computed in plain JS from the contract's semantics (test/helpers/companyStaff.ts).
 */
import {
  bySize, DECIDERS, decisionMakersOf, describeStaffRejections, ids, itRefusesWithdrawnCompany, listAll, STAFF_WORLD, useHandMadeStaff, withdrawStaff, type Res,
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

  describeStaffRejections(OP, lw);

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people disappear from the list and its total', async () => {
      const { cid } = await withdrawStaff(lw);
      expect((await listAll(lw, `/api/v1/company/decision-makers?company_id=${cid}`)).ids).toEqual(decisionMakersOf(lw, cid).map((p) => p.id));
    });

    itRefusesWithdrawnCompany(OP, lw);
  });
});

describe('GET /company/decision-makers: edge semantics on hand-made records', () => {
  const { lw, get, s } = useHandMadeStaff();

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
