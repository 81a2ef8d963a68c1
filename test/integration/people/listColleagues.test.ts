/**
 * GET /person/colleagues (listColleagues) on a seeded world and on hand-made records; expectations
 * computed in plain JS from the contract's semantics (test/helpers/personRelationships.ts).
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { byId, pageOf, personHit, useLakeWorld } from '../../helpers/lakeWorld';
import {
  bigSubject, colleaguesOf, describeSubjectRejections, enc, handMadeRelationships, ids, itRefusesWithdrawnSubject, listAll, midSubject, RELATIONSHIP_WORLD, withdrawThree, type Res,
} from '../../helpers/personRelationships';

describe('GET /person/colleagues on a seeded world', () => {
  const lw = useLakeWorld({ world: RELATIONSHIP_WORLD });
  const path = (q: string) => `/api/v1/person/colleagues?${q}`;

  it('same current employer, subject excluded, ordered by band, then full_name (binary), then id', async () => {
    const s = bigSubject(lw);
    const want = colleaguesOf(lw, s);
    expect(want.length).toBeGreaterThan(100);
    const got = await listAll(lw, path(`id=${s.id}`));
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want.map((p) => p.id));
    expect(got.ids).not.toContain(s.id);
    const byKey = new Map(lw.persons.map((p) => [p.id, p]));
    for (const hit of got.hits) expect(hit).toEqual(personHit(byKey.get(hit.id as string)!));
  });

  it('finds the subject by network_url, username or id, in that order', async () => {
    const s = midSubject(lw);
    const other = bigSubject(lw);
    const want = colleaguesOf(lw, s).slice(0, 25).map((p) => p.id);
    for (const q of [
      `network_url=${enc(s.network_url)}`,
      `network_url=${enc(s.network_url.replace('https://www.', 'http://'))}&id=${other.id}`,
      `username=${s.username.toUpperCase()}`,
      `username=${s.username}&id=${other.id}`,
      `id=${s.id}`,
    ]) {
      const res = (await lw.h.get(path(q), lw.key)) as unknown as Res;
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(want);
    }
  });

  it('pages: default 25, the last partial page, a page past the end, per_page 1', async () => {
    const s = midSubject(lw);
    const want = colleaguesOf(lw, s);
    const last = Math.ceil(want.length / 25);
    const seen: string[] = [];
    for (let page = 1; page <= last; page++) {
      const res = (await lw.h.get(path(`id=${s.id}&page=${page}`), lw.key)) as unknown as Res;
      expect(res.body.per_page).toBe(25);
      expect(res.body.page).toBe(page);
      expect(ids(res)).toEqual(pageOf(want, page, 25).map((p) => p.id));
      seen.push(...ids(res));
    }
    expect(seen).toEqual(want.map((p) => p.id));
    const past = (await lw.h.get(path(`id=${s.id}&page=${last + 1}`), lw.key)) as unknown as Res;
    expect(past.status).toBe(200);
    expect(past.body.results).toEqual([]);
    expect(past.body.total).toBe(want.length);
    const one = (await lw.h.get(path(`id=${s.id}&per_page=1&page=${want.length}`), lw.key)) as unknown as Res;
    expect(ids(one)).toEqual([want[want.length - 1]!.id]);
  });

  describeSubjectRejections(lw, path);

  describe('withdrawn profiles (run last: they change the world)', () => {
    itRefusesWithdrawnSubject(lw, path);

    it('withdrawn people disappear from colleagues, and from the total', async () => {
      const { s, colleague } = await withdrawThree(lw, (id) => suppress(lw.h.knex, 'person', { by: 'id', value: id }));
      const got = await listAll(lw, `/api/v1/person/colleagues?id=${s.id}`);
      expect(got.ids).toEqual(colleaguesOf(lw, s).map((p) => p.id));
      expect(got.ids).not.toContain(colleague.id);
    });
  });
});

describe('GET /person/colleagues: edge semantics on hand-made records', () => {
  const lw = useLakeWorld();
  const r = handMadeRelationships();
  beforeAll(() => lw.addPersons(...r.records));
  const get = (p: string) => lw.h.get(p, lw.key) as unknown as Promise<Res>;

  it('a subject without a current employer has none (200, empty)', async () => {
    const res = await get(`/api/v1/person/colleagues?id=${r.unemployed.id}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
    expect(res.body.results).toEqual([]);
  });

  it('band first, then full_name in binary order (upper case before lower, accents after), then id', async () => {
    const vps = [r.vp1, r.vp2].sort(byId).map((p) => p.id);
    const res = await get(`/api/v1/person/colleagues?id=${r.boss.id}`);
    expect(ids(res)).toEqual([...vps, r.upper.id, r.alpha.id, r.accent.id]);
    const fromUpper = await get(`/api/v1/person/colleagues?id=${r.upper.id}`);
    expect(ids(fromUpper)).toEqual([r.boss.id, ...vps, r.alpha.id, r.accent.id]);
  });
});
