/**
 * POST /company/match against a real PostgreSQL: by domain, website, email, name (legal suffixes
 * aside), a former name from the change log, similar names, identifiers; too little input; withdrawal.
 */
import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { storeCompanies } from '../../helpers/lakeRecords';
import { matchCompany, rareSurname } from '../../helpers/matchRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const match = (body: unknown) => h.post('/api/v1/company/match', body, h.key());
const evidence = (res: { body: { match: { evidence: { field: string; level: string }[] } } }) =>
  Object.fromEntries(res.body.match.evidence.map((e) => [e.field, e.level]));

describe('POST /company/match', () => {
  const word = rareSurname();
  const acme = matchCompany(`${word} Analytics Corp.`, `https://www.${word.toLowerCase()}-analytics.com/`, { hq_city: 'Austin' });
  const similar = matchCompany(`${word} Analytic Partners LLC`, `https://${word.toLowerCase()}partners.io`, { hq_city: 'Berlin', hq_country: 'Germany', hq_country_code: 'DE' });
  const oldName = `${rareSurname()} Systems Inc`;
  const renamed = matchCompany(oldName, `https://${word.toLowerCase()}-renamed.com`);
  beforeAll(async () => {
    await storeCompanies(h.knex, acme, similar, renamed);
    // The rename, as the lake records it: a new copy of the record with another name.
    await storeCompanies(h.knex, { ...renamed, name: `${word} Cloud` });
  });

  it('matches a bare domain, a website URL and an email\'s domain', async () => {
    for (const body of [
      { domain: `${word.toLowerCase()}-analytics.com` },
      { domain: `https://careers.${word.toLowerCase()}-analytics.com/jobs?x=1` },
      { email: `jane@${word.toLowerCase()}-analytics.com` },
    ]) {
      const res = await match(body);
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(acme.id);
      expect(evidence(res)).toMatchObject({ domain: 'exact' });
      expect(res.body.match.likelihood).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('matches a name with legal suffixes, case and punctuation aside, and a location', async () => {
    for (const name of [`${word.toUpperCase()} ANALYTICS CORPORATION`, `${word} Analytics`, `${word.toLowerCase()} analytics, inc.`]) {
      const res = await match({ name, location: 'Austin' });
      expect(res.status).toBe(200);
      expect(res.body.data.id).toBe(acme.id);
      expect(evidence(res)).toEqual({ name: 'exact', location: 'exact' });
    }
  });

  it('finds a company by its former name, with level former', async () => {
    const res = await match({ name: oldName, min_likelihood: 0 });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(renamed.id);
    expect(evidence(res).name).toBe('former');
  });

  it('scores similar names as candidates, the right one first', async () => {
    const res = await match({ name: `${word} Analytics`, candidates: 5, min_likelihood: 0 });
    expect(res.status).toBe(200);
    const ids = res.body.candidates.map((c: { data: { id: string } }) => c.data.id);
    expect(ids[0]).toBe(acme.id);
    expect(ids).toContain(similar.id);
  });

  it('answers an identifier as the lookup does, with likelihood 1', async () => {
    const res = await match({ company_id: acme.company_id });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(acme.id);
    expect(res.body.match.likelihood).toBe(1);
  });

  it.each([
    ['nothing', {}],
    ['a domain that is not a domain', { domain: 'localhost' }],
    ['a location alone', { location: 'Austin' }],
    ['a free mail address', { email: 'someone@gmail.com' }],
  ])('400 MATCH_INPUT_INSUFFICIENT for %s', async (_name, body) => {
    const res = await match(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('MATCH_INPUT_INSUFFICIENT');
  });

  it('404 NO_MATCH for a company the lake does not have, and the same for a withdrawn one', async () => {
    const goneWord = rareSurname();
    const gone = matchCompany(`${goneWord} Labs`, `https://${goneWord.toLowerCase()}labs.com`);
    await storeCompanies(h.knex, gone);
    expect((await match({ domain: `${goneWord.toLowerCase()}labs.com` })).status).toBe(200);
    await suppress(h.knex, 'company', { by: 'username', value: gone.username });
    const withdrawn = await match({ domain: `${goneWord.toLowerCase()}labs.com`, candidates: 3 });
    const never = await match({ domain: `${rareSurname().toLowerCase()}labs.com`, candidates: 3 });
    expect(withdrawn.status).toBe(404);
    expect(withdrawn.body.code).toBe('NO_MATCH');
    expect(withdrawn.body.error).toBe(never.body.error);
  });
});
