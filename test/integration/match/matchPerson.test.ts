/**
 * POST /person/match against a real PostgreSQL: the answers by name and company, work email, domain
 * and identifier; the evidence; ambiguity; too little input; withdrawal; the bar. Every response is
 * checked against the contract by the harness.
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../../helpers/matchRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const match = (body: unknown) => h.post('/api/v1/person/match', body, h.key());
const evidence = (res: { body: { match: { evidence: { field: string; level: string }[] } } }) =>
  Object.fromEntries(res.body.match.evidence.map((e) => [e.field, e.level]));

describe('POST /person/match', () => {
  const acme = matchCompany('Acme Robotics, Inc.', 'https://www.acmerobotics.com/');
  const globex = matchCompany('Globex Corporation', 'https://globex.io');
  const last = rareSurname();
  const robert = matchPerson('Robert', last, [
    { company: acme.name, companyId: acme.company_id, title: 'VP of Sales' },
    { company: globex.name, companyId: globex.company_id, title: 'Sales Manager', current: false },
  ]);
  // Same first name, another last name, same company: must not be confused with Robert.
  const other = matchPerson('Robert', rareSurname(), [{ company: acme.name, companyId: acme.company_id }]);
  beforeAll(async () => {
    await storeCompanies(h.knex, acme, globex);
    await storePersons(h.knex, robert, other);
  });

  it('matches a name and a company, legal suffix and case aside, with the full record and the evidence', async () => {
    const res = await match({ name: `robert ${last.toUpperCase()}`, company: 'ACME Robotics' });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(res.body.data).toEqual((await h.get(`/api/v1/person?id=${robert.id}`, h.key())).body.data);
    expect(res.body.match.likelihood).toBeGreaterThanOrEqual(0.7);
    expect(res.body.match.ambiguous).toBe(false);
    expect(evidence(res)).toEqual({ name: 'exact', company: 'exact' });
    expect(res.body.match.evidence.every((e: { weight: number }) => e.weight > 0)).toBe(true);
    expect(res.body.candidates).toBeUndefined();
  });

  it('matches a nickname, and a previous employer (more weakly)', async () => {
    const now = await match({ name: `Bob ${last}`, company: 'Acme Robotics' });
    expect(now.status).toBe(200);
    expect(now.body.data.id).toBe(robert.id);
    expect(evidence(now)).toMatchObject({ name: 'nickname', company: 'exact' });
    const before = await match({ first_name: 'Robert', last_name: last, company: 'Globex', min_likelihood: 0 });
    expect(before.status).toBe(200);
    expect(before.body.data.id).toBe(robert.id);
    expect(evidence(before)).toMatchObject({ company: 'former' });
    const companyWeight = (res: typeof now) => res.body.match.evidence.find((e: { field: string }) => e.field === 'company').weight;
    expect(companyWeight(before)).toBeLessThan(companyWeight(now));
    expect(before.body.match.likelihood).toBeLessThanOrEqual(now.body.match.likelihood);
  });

  it('matches a work email alone: its domain points at the employer, its local part at the name', async () => {
    const res = await match({ email: `rob.${last.toLowerCase()}@acmerobotics.com` });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(evidence(res)).toMatchObject({ email: 'nickname', company_domain: 'exact' });
    const initial = await match({ email: `r${last.toLowerCase()}@acmerobotics.com` });
    expect(initial.body.data.id).toBe(robert.id);
    expect(evidence(initial)).toMatchObject({ email: 'exact' });
  });

  it('matches a name and a company website', async () => {
    const res = await match({ name: `Robert ${last}`, company_domain: 'https://www.acmerobotics.com/about' });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(evidence(res)).toMatchObject({ name: 'exact', company_domain: 'exact' });
  });

  it('matches through a typo in the last name (the trigram arm)', async () => {
    // Two neighbouring letters swapped: the first pair from the 4th letter on that differ (a pair of
    // equal letters swapped is no typo: the random surname has one in 20 times at any place).
    const i = [3, 4, 5, 6].find((k) => last[k] !== last[k + 1])!;
    const typo = `${last.slice(0, i)}${last[i + 1]}${last[i]}${last.slice(i + 2)}`;
    expect(typo).not.toBe(last);
    const res = await match({ name: `Robert ${typo}`, company: 'Acme Robotics', min_likelihood: 0.3 });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(evidence(res).name).toBe('close');
  });

  it('answers an identifier as the lookup does, with likelihood 1', async () => {
    const res = await match({ username: robert.username, name: 'Someone Else' });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(robert.id);
    expect(res.body.match).toMatchObject({ likelihood: 1, ambiguous: false });
  });

  it('returns scored candidates, best first, when asked', async () => {
    const res = await match({ name: `Robert ${last}`, company: 'Acme Robotics', candidates: 5, min_likelihood: 0 });
    expect(res.status).toBe(200);
    const c = res.body.candidates as { data: { id: string }; match: { likelihood: number } }[];
    expect(c[0]!.data.id).toBe(robert.id);
    expect(c.map((x) => x.match.likelihood)).toEqual([...c.map((x) => x.match.likelihood)].sort((a, b) => b - a));
    expect(c.length).toBeLessThanOrEqual(5);
  });

  it('does not claim either of two people with the same name at the same company', async () => {
    const twinLast = rareSurname();
    const a = matchPerson('Maria', twinLast, [{ company: acme.name, companyId: acme.company_id, title: 'Engineer' }]);
    const b = matchPerson('Maria', twinLast, [{ company: acme.name, companyId: acme.company_id, title: 'Designer' }]);
    await storePersons(h.knex, a, b);
    const res = await match({ name: `Maria ${twinLast}`, company: 'Acme Robotics' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NO_MATCH');
    const both = await match({ name: `Maria ${twinLast}`, company: 'Acme Robotics', candidates: 10, min_likelihood: 0 });
    expect(both.status).toBe(200);
    const ids = both.body.candidates.map((c: { data: { id: string } }) => c.data.id);
    expect(ids.slice(0, 2).sort()).toEqual([a.id, b.id].sort());
    for (const c of both.body.candidates.slice(0, 2)) {
      expect(c.match.ambiguous).toBe(true);
      expect(c.match.likelihood).toBeLessThanOrEqual(0.5);
    }
    // A field that tells them apart settles it.
    const titled = await match({ name: `Maria ${twinLast}`, company: 'Acme Robotics', title: 'Designer', min_likelihood: 0 });
    expect(titled.body.data.id).toBe(b.id);
  });

  it.each([
    ['nothing', {}],
    ['a first name alone', { first_name: 'Robert' }],
    ['a name alone', { name: 'Robert Smith' }],
    ['a one-word name and a company', { name: 'Robert', company: 'Acme' }],
    ['a domain that is not a domain', { name: 'Robert Smith', company_domain: 'not a domain' }],
    ['a free mail address alone', { email: 'robert.smith@gmail.com' }],
  ])('400 MATCH_INPUT_INSUFFICIENT for %s, listing what works', async (_name, body) => {
    const res = await match(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('MATCH_INPUT_INSUFFICIENT');
    expect(res.body.error).toContain('first_name and last_name');
  });

  it.each([
    ['an unknown field', { name: 'A B', company: 'C', nickname: 'x' }],
    ['min_likelihood above 1', { name: 'A B', company: 'C', min_likelihood: 1.5 }],
    ['candidates above 10', { name: 'A B', company: 'C', candidates: 11 }],
    ['a company_id that is not numeric', { name: 'A B', company_id: 'acme' }],
  ])('400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await match(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('404 NO_MATCH for a person the lake does not have', async () => {
    const res = await match({ name: `Robert ${rareSurname()}`, company: 'Acme Robotics' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NO_MATCH');
  });

  it('never matches a withdrawn person, and answers exactly as for one the lake never had', async () => {
    const goneLast = rareSurname();
    const gone = matchPerson('Helena', goneLast, [{ company: acme.name, companyId: acme.company_id }]);
    await storePersons(h.knex, gone);
    expect((await match({ name: `Helena ${goneLast}`, company: 'Acme Robotics' })).status).toBe(200);
    await suppress(h.knex, 'person', { by: 'username', value: gone.username });
    const strip = (body: Record<string, unknown>) => ({ ...body, metadata: undefined, quotas: undefined });
    const withdrawn = await match({ name: `Helena ${goneLast}`, company: 'Acme Robotics', candidates: 10, min_likelihood: 0 });
    const never = await match({ name: `Helena ${rareSurname()}`, company: 'Acme Robotics', candidates: 10, min_likelihood: 0 });
    expect(withdrawn.status).toBe(404);
    expect(strip(withdrawn.body)).toEqual(strip(never.body));
    // By identifier too: no 451 here, the same 404.
    const byId = await match({ id: gone.id });
    expect(byId.status).toBe(404);
    expect(byId.body.code).toBe('NO_MATCH');
  });

  it('honours min_likelihood: the same query answered below a bar it does not reach is 404', async () => {
    const weak = await match({ name: `Robert ${last}`, location: 'Austin', min_likelihood: 0 });
    expect(weak.status).toBe(200);
    const bar = Math.min(1, weak.body.match.likelihood + 0.001);
    const res = await match({ name: `Robert ${last}`, location: 'Austin', min_likelihood: bar });
    expect(res.status).toBe(404);
  });
});
