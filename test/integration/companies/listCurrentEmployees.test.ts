/**
 * GET /company/current-employees (listCurrentEmployees) on a seeded world and on hand-made records;
 * expectations computed in plain JS from the contract's semantics (test/helpers/companyStaff.ts).
 */
import {
  bySize, currentOf, describeStaffRejections, ids, itRefusesWithdrawnCompany, listAll, personsById, STAFF_WORLD, useHandMadeStaff, withdrawStaff, type Res,
} from '../../helpers/companyStaff';
import { pageOf, personHit, useLakeWorld } from '../../helpers/lakeWorld';

const OP = 'current-employees';

describe('GET /company/current-employees on a seeded world', () => {
  const lw = useLakeWorld({ world: STAFF_WORLD });
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('the largest company: every current employee, by band, then full_name (binary), then id', async () => {
    const [cid] = bySize(lw);
    const want = currentOf(lw, cid!);
    expect(want.length).toBeGreaterThan(150);
    const got = await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`);
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
    const k = personsById(lw);
    for (const hit of got.hits) expect(hit).toEqual(personHit(k.get(hit.id as string)!));
  });

  it('several companies, and company_id with leading zeros', async () => {
    for (const cid of bySize(lw).slice(3, 8)) {
      const want = currentOf(lw, cid).map((p) => p.id);
      expect((await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`)).ids).toEqual(want);
    }
    const cid = bySize(lw)[4]!;
    expect((await listAll(lw, `/api/v1/company/current-employees?company_id=000${cid}`)).ids).toEqual(currentOf(lw, cid).map((p) => p.id));
  });

  it('pages: default 25, the last partial page, past the end, per_page 1', async () => {
    const cid = bySize(lw).find((c) => currentOf(lw, c).length % 25 !== 0 && currentOf(lw, c).length > 30)!;
    const want = currentOf(lw, cid);
    const last = Math.ceil(want.length / 25);
    const seen: string[] = [];
    for (let page = 1; page <= last; page++) {
      const res = await get(`/api/v1/company/current-employees?company_id=${cid}&page=${page}`);
      expect(res.body.per_page).toBe(25);
      expect(ids(res)).toEqual(pageOf(want, page, 25).map((p) => p.id));
      seen.push(...ids(res));
    }
    expect(seen).toEqual(want.map((p) => p.id));
    const past = await get(`/api/v1/company/current-employees?company_id=${cid}&page=${last + 1}`);
    expect(past.body.results).toEqual([]);
    expect(past.body.total).toBe(want.length);
    const one = await get(`/api/v1/company/current-employees?company_id=${cid}&per_page=1&page=2`);
    expect(ids(one)).toEqual([want[1]!.id]);
  });

  describeStaffRejections(OP, lw);

  describe('withdrawn records (run last: they change the world)', () => {
    it('withdrawn people disappear from the list and its total', async () => {
      const { cid, gone } = await withdrawStaff(lw);
      const cur = await listAll(lw, `/api/v1/company/current-employees?company_id=${cid}`);
      expect(cur.ids).toEqual(currentOf(lw, cid).map((p) => p.id));
      for (const p of gone) expect(cur.ids).not.toContain(p.id);
    });

    itRefusesWithdrawnCompany(OP, lw);
  });
});

describe('GET /company/current-employees: edge semantics on hand-made records', () => {
  const { lw, get, s } = useHandMadeStaff();

  it('band order, then full_name in binary order (upper case first), then id', async () => {
    const res = await get('/api/v1/company/current-employees?company_id=4242');
    // Binary: 'Bo Back' < 'Ivan IC' < 'ivan ic'.
    expect(ids(res)).toEqual([s.ceo, s.dir, s.mgr, s.boomerang, s.padded, s.ic].map((p) => p.id));
    expect(ids(res)).toEqual(currentOf(lw, '4242').map((p) => p.id));
  });

  it('a known company with nobody: 200, empty', async () => {
    const res = await get('/api/v1/company/current-employees?company_id=5151');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });
});
