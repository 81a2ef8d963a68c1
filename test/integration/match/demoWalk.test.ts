/**
 * The README's matching walk on the demo world of `npm start` (src/world/demo.ts, loaded as on a
 * first start: seedLake with the renamed companies' history): every query of the walk answers what
 * the README shows, so the walk cannot silently rot when the world or the engine changes. Each
 * expectation is computed from the world generator (the person a query is made from), not from the
 * engine. Likelihood figures are only bounded (the calibration may be refitted).
 */
import { createWorld, type PersonResult } from '../../../src/world';
import { DEMO_LOADED_PERSONS, DEMO_WORLD } from '../../../src/world/demo';
import { seedLake } from '../../../src/world/seed';
import { useLakeWorld } from '../../helpers/lakeWorld';

const asOf = new Date('2026-11-01T00:00:00Z');
const world = createWorld({ ...DEMO_WORLD, asOf });
const lake = useLakeWorld();
const loaded: PersonResult[] = [];
for (let i = 0; i < DEMO_LOADED_PERSONS; i++) loaded.push(world.person(i));
const named = (full: string) => loaded.filter((p) => p.full_name === full);

const post = (path: string, body: unknown) => lake.h.post(`/api/v1${path}`, body, lake.key);
const levels = (res: { body: { match: { evidence: { field: string; level: string }[] } } }) =>
  Object.fromEntries(res.body.match.evidence.map((e) => [e.field, e.level]));

describe("the README's matching walk on the demo world", () => {
  beforeAll(async () => {
    await seedLake(lake.h.knex, { ...DEMO_WORLD, asOf, loadPersons: DEMO_LOADED_PERSONS });
  }, 120_000);

  it('the demo world holds the people and companies the walk uses', () => {
    expect(named('Rebecca Barton').map((p) => p.current_company)).toEqual(['Beatty Real Estate']);
    expect(named('Jacquelyn Considine').map((p) => p.current_company)).toEqual(['Harris Systems']);
    expect(named('Richard Graham').map((p) => p.current_company)).toEqual(['Kutch School of Business']);
    const reis = named('Suélen Reis');
    expect(reis).toHaveLength(2);
    expect(new Set(reis.map((p) => p.current_company))).toEqual(new Set(['Nogueira Consulting']));
    const tooth = [...world.companyRecords()].findIndex((c) => c.name === 'Tooth Outfitters');
    expect(world.formerCompany(tooth)?.name).toBe('Tooth Market');
  });

  it('by name and company, a nickname for the formal name', async () => {
    const res = await post('/person/match', { name: 'Becky Barton', company: 'Beatty Real Estate' });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(named('Rebecca Barton')[0]!.id);
    expect(res.body.match.likelihood).toBeGreaterThanOrEqual(0.7);
    expect(levels(res)).toEqual({ company: 'exact', name: 'nickname' });
    expect(res.body.match.ambiguous).toBe(false);
  });

  it('by work email alone, and by name and the company website', async () => {
    const byEmail = await post('/person/match', { email: 'jconsidine@harris-systems.com' });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.data.id).toBe(named('Jacquelyn Considine')[0]!.id);
    expect(levels(byEmail)).toMatchObject({ company_domain: 'exact', email: 'exact' });
    const byDomain = await post('/person/match', { name: 'Richard Graham', company_domain: 'kutch-school-of-business.co.uk' });
    expect(byDomain.status).toBe(200);
    expect(byDomain.body.data.id).toBe(named('Richard Graham')[0]!.id);
    expect(levels(byDomain)).toEqual({ name: 'exact', company_domain: 'exact' });
  });

  it('namesakes at one company: neither claimed (NO_MATCH at the default bar), both candidates marked ambiguous below it', async () => {
    const body = { name: 'Suélen Reis', company: 'Nogueira Consulting' };
    const strict = await post('/person/match', body);
    expect([strict.status, strict.body.code]).toEqual([404, 'NO_MATCH']);
    const low = await post('/person/match', { ...body, candidates: 3, min_likelihood: 0.2 });
    expect(low.status).toBe(200);
    expect(low.body.match.ambiguous).toBe(true);
    expect(low.body.match.likelihood).toBeLessThan(0.7);
    expect(new Set(low.body.candidates.map((c: { data: { id: string } }) => c.data.id))).toEqual(new Set(named('Suélen Reis').map((p) => p.id)));
  });

  it('a company by its website, and by the name it had before its rename (through the change log)', async () => {
    const byDomain = await post('/company/match', { domain: 'https://www.harris-systems.com/about' });
    expect(byDomain.status).toBe(200);
    expect(byDomain.body.data.name).toBe('Harris Systems');
    const byFormer = await post('/company/match', { name: 'Tooth Market' });
    expect(byFormer.status).toBe(200);
    expect(byFormer.body.data.name).toBe('Tooth Outfitters');
    expect(levels(byFormer)).toEqual({ name: 'former' });
  });

  it('a list in one request: matched, unmatched and failed items', async () => {
    const res = await post('/people/bulk-match', {
      queries: [
        { name: 'Becky Barton', company: 'Beatty Real Estate' },
        { email: 'jconsidine@harris-systems.com' },
        { name: 'Jane Nobody', company: 'Harris Systems' },
        { first_name: 'Jane' },
      ],
    });
    expect(res.status).toBe(200);
    expect([res.body.matched, res.body.unmatched, res.body.failed]).toEqual([2, 1, 1]);
    expect(res.body.results.map((r: { status: string; code: string | null }) => [r.status, r.code])).toEqual([
      ['matched', null], ['matched', null], ['unmatched', 'NO_MATCH'], ['failed', 'MATCH_INPUT_INSUFFICIENT'],
    ]);
  });
});
