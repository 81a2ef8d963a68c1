/**
 * POST /people/bulk-match: per-query outcomes in order (matched, unmatched, failed), the bars,
 * the counts, and one count against the rate limit for the whole request.
 */
import { useHarness } from '../../helpers/harness';
import { storeCompanies, storePersons } from '../../helpers/lakeRecords';
import { matchCompany, matchPerson, rareSurname } from '../../helpers/matchRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });

describe('POST /people/bulk-match', () => {
  const acme = matchCompany('Initrode Dynamics Ltd', 'https://initrode-dynamics.com');
  const lasts = [rareSurname(), rareSurname()];
  const people = lasts.map((l) => matchPerson('Anneliese', l, [{ company: acme.name, companyId: acme.company_id }]));
  beforeAll(async () => {
    await storeCompanies(h.knex, acme);
    await storePersons(h.knex, ...people);
  });

  it('answers each query in order with its own status, likelihood and record, and the counts', async () => {
    const queries = [
      { name: `Anneliese ${lasts[0]}`, company: 'Initrode Dynamics' },
      { name: `Anneliese ${rareSurname()}`, company: 'Initrode Dynamics' },
      { first_name: 'Anneliese' },
      { email: `anneliese.${lasts[1]!.toLowerCase()}@initrode-dynamics.com`, candidates: 3 },
    ];
    const res = await h.post('/api/v1/people/bulk-match', { queries }, h.key());
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['matched', 'unmatched', 'failed', 'matched']);
    expect(res.body.results.map((r: { input: unknown }) => r.input)).toEqual(queries);
    expect(res.body.results[0].data.id).toBe(people[0]!.id);
    expect(res.body.results[0].likelihood).toBe(res.body.results[0].match.likelihood);
    expect(res.body.results[0]).toMatchObject({ code: null, error: null });
    expect(res.body.results[1]).toMatchObject({ code: 'NO_MATCH', data: null, likelihood: null, match: null });
    expect(res.body.results[2]).toMatchObject({ code: 'MATCH_INPUT_INSUFFICIENT', data: null });
    expect(res.body.results[3].data.id).toBe(people[1]!.id);
    expect(res.body).toMatchObject({ matched: 2, unmatched: 1, failed: 1 });
  });

  it('applies a query\'s own min_likelihood over the request\'s', async () => {
    const q = { name: `Anneliese ${lasts[0]}`, company: 'Initrode Dynamics' };
    const res = await h.post('/api/v1/people/bulk-match', { queries: [q, { ...q, min_likelihood: 0 }], min_likelihood: 1 }, h.key());
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['unmatched', 'matched']);
  });

  it('counts once against the rate limit, however many queries', async () => {
    const { key } = await h.workspace({ rateLimit: 50 });
    const queries = Array.from({ length: 100 }, (_, i) => ({ name: `Anneliese ${lasts[i % 2]}`, company: 'Initrode Dynamics' }));
    const res = await h.post('/api/v1/people/bulk-match', { queries }, key);
    expect(res.status).toBe(200);
    expect(res.body.matched).toBe(100);
    expect(res.body.quotas.rate_limit.workspace.remaining).toBe(49);
  });

  it.each([
    ['no queries', { queries: [] }],
    ['101 queries', { queries: Array.from({ length: 101 }, () => ({ email: 'a@b.com' })) }],
    ['a query that is not an object', { queries: ['Jane Doe'] }],
    ['an unknown field', { queries: [{ email: 'a@b.com' }], extra: true }],
  ])('400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await h.post('/api/v1/people/bulk-match', body, h.key());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});
