import { suppress } from '../../../src/domain/lake/suppression';
import { useHarness } from '../../helpers/harness';
import { companyRecord, storeCompanies } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const check = (query: string) => h.get(`/api/v1/company/check?${query}`, h.key());

describe('GET /company/check', () => {
  const company = companyRecord({ fetched_at: '2026-09-30T23:59:59Z' });
  beforeAll(() => storeCompanies(h.knex, company));

  it.each([
    ['username', () => `username=${company.username}`],
    ['company_id', () => `company_id=${company.company_id}`],
    ['id', () => `id=${company.id}`],
    ['network_url', () => `network_url=${encodeURIComponent(company.network_url)}`],
  ])('an indexed company by %s', async (_by, query) => {
    const res = await check(query());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ exists: true, id: company.id, fetched_at: '2026-09-30T23:59:59.000Z' });
  });

  it('an unknown company: exists false', async () => {
    const res = await check(`company_id=${Number(company.company_id) + 7_000_000_000}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ exists: false, id: null, fetched_at: null });
  });

  it('400 without an identifier or with a malformed one', async () => {
    for (const query of ['', 'company_id=12a', `network_url=${encodeURIComponent('https://www.linkedin.com/in/x')}`]) {
      const res = await check(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('a withdrawn company is 451', async () => {
    const gone = companyRecord();
    await storeCompanies(h.knex, gone);
    await suppress(h.knex, 'company', { by: 'id', value: gone.id });
    const res = await check(`username=${gone.username}`);
    expect(res.status).toBe(451);
    expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
  });
});
