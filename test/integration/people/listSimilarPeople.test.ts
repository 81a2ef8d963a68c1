/**
 * GET /person/similar (listSimilarPeople) on a seeded world and on hand-made records; expectations
 * computed in plain JS from the contract's semantics (test/helpers/personRelationships.ts).
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { useLakeWorld } from '../../helpers/lakeWorld';
import {
  describeSubjectRejections, enc, handMadeRelationships, ids, itRefusesWithdrawnSubject, listAll, RELATIONSHIP_WORLD, similarTo, withdrawThree, type Res,
} from '../../helpers/personRelationships';

describe('GET /person/similar on a seeded world', () => {
  const lw = useLakeWorld({ world: RELATIONSHIP_WORLD });
  const path = (q: string) => `/api/v1/person/similar?${q}`;

  it('same band, industry and country; subject excluded; most recently verified first', async () => {
    const s = lw.persons.find((p) => p.seniority === 'manager' && p.geo_country_code === 'US')!;
    const want = similarTo(lw, s);
    expect(want.length).toBeGreaterThan(2);
    const got = await listAll(lw, path(`username=${s.username}`));
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
  });

  it('a subject without a band: the band is left out (any band matches)', async () => {
    const s = lw.persons.find((p) => p.seniority == null && p.geo_country_code === 'US')!;
    const want = similarTo(lw, s);
    expect(want.some((p) => p.seniority != null)).toBe(true);
    expect(want.some((p) => p.seniority == null)).toBe(true);
    const got = await listAll(lw, path(`id=${s.id}`));
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
  });

  it('a few more subjects', async () => {
    for (const s of lw.persons.filter((p) => p.seniority === 'director' || p.seniority === 'vp').slice(0, 4)) {
      const want = similarTo(lw, s);
      const got = await listAll(lw, path(`network_url=${enc(s.network_url)}`));
      expect(got.total).toBe(want.length);
      expect(got.ids).toEqual(want.map((p) => p.id));
    }
  });

  describeSubjectRejections(lw, path);

  describe('withdrawn profiles (run last: they change the world)', () => {
    itRefusesWithdrawnSubject(lw, path);

    it('withdrawn people disappear from similar, and from the total', async () => {
      const { similarSubject, similar } = await withdrawThree(lw, (id) => suppress(lw.h.knex, 'person', { by: 'id', value: id }));
      const got = await listAll(lw, `/api/v1/person/similar?id=${similarSubject.id}`);
      expect(got.ids).toEqual(similarTo(lw, similarSubject).map((p) => p.id));
      expect(got.ids).not.toContain(similar.id);
    });
  });
});

describe('GET /person/similar: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const r = handMadeRelationships();
  beforeAll(() => lw.addPersons(...r.records));
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('criteria the subject lacks are left out', async () => {
    // No industry, no country: every other manager, whatever their industry and country.
    const want = similarTo(lw, lw.persons.find((p) => p.id === r.unemployed.id)!);
    expect(want.map((p) => p.id).sort()).toEqual([r.lastMonth.id, r.tooOld.id].sort());
    const res = await get(`/api/v1/person/similar?id=${r.unemployed.id}&per_page=100`);
    expect(ids(res)).toEqual(want.map((p) => p.id));
    expect(res.body.results.every((x) => (x as unknown as { seniority: string }).seniority === 'manager')).toBe(true);
  });
});
