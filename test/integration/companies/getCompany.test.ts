import { suppress } from '../../../src/domain/lake/suppression';
import { contractSchema, missingFields } from '../../helpers/completeness';
import { useHarness } from '../../helpers/harness';
import { companyRecord, storeCompanies } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 10_000 });
const get = (query: string) => h.get(`/api/v1/company?${query}`, h.key());
const enc = encodeURIComponent;

describe('GET /company', () => {
  const acme = companyRecord();
  beforeAll(() => storeCompanies(h.knex, acme));

  it.each([
    ['username', () => `username=${acme.username}`],
    ['username in another case', () => `username=${acme.username.toUpperCase()}`],
    ['company_id', () => `company_id=${acme.company_id}`],
    ['company_id with leading zeros', () => `company_id=000${acme.company_id}`],
    ['id', () => `id=${acme.id}`],
    ['network_url', () => `network_url=${enc(acme.network_url)}`],
    ['network_url with slash, query and fragment', () => `network_url=${enc(`${acme.network_url}/?viewAsMember=true#about`)}`],
    ['network_url without scheme and www', () => `network_url=${enc(`linkedin.com/company/${acme.username}`)}`],
  ])('finds the company by %s and answers it whole', async (_by, query) => {
    const res = await get(query());
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(acme);
  });

  it('checks network_url, username, company_id, id in that order', async () => {
    const other = companyRecord();
    await storeCompanies(h.knex, other);
    expect((await get(`id=${other.id}&company_id=${acme.company_id}`)).body.data.id).toBe(acme.id);
    expect((await get(`company_id=${other.company_id}&username=${acme.username}`)).body.data.id).toBe(acme.id);
    expect((await get(`username=${other.username}&network_url=${enc(acme.network_url)}`)).body.data.id).toBe(acme.id);
  });

  it('every field of the schema is present, at every depth, null when empty', async () => {
    const sparse = companyRecord({
      tagline: null,
      phone: null,
      is_verified: null,
      page_verification: null,
      call_to_action: null,
      call_to_action_url: null,
      affiliated_pages: null,
      featured_customers: null,
      crunchbase_url: null,
      cover_image_url: null,
      hq_line2: null,
      hq_description: null,
      is_claimable: null,
    });
    await storeCompanies(h.knex, sparse);
    for (const record of [acme, sparse]) {
      const res = await get(`id=${record.id}`);
      expect(missingFields(contractSchema('CompanyResult'), res.body.data)).toEqual([]);
      expect(res.body.data).toEqual(record);
    }
  });

  describe('400 VALIDATION_ERROR', () => {
    it.each([
      ['no identifier', ''],
      ['a person URL', `network_url=${enc('https://www.linkedin.com/in/priya-raman')}`],
      ['another host', `network_url=${enc('https://example.com/company/acme')}`],
      ['a non-numeric company_id', 'company_id=acme'],
      ['an id that is not a UUID', 'id=18234567'],
      ['an unknown parameter', 'company_id=1&domain=acme.com'],
    ])('%s', async (_name, query) => {
      const res = await get(query);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });
  });

  it('404 NOT_FOUND for a company the lake does not hold', async () => {
    const ghost = companyRecord();
    for (const query of [`username=${ghost.username}`, `company_id=${ghost.company_id}`, `id=${ghost.id}`]) {
      const res = await get(query);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('451 DATA_SUBJECT_BLOCKED by every identifier once withdrawn', async () => {
    const gone = companyRecord();
    await storeCompanies(h.knex, gone);
    await suppress(h.knex, 'company', { by: 'company_id', value: gone.company_id });
    for (const query of [
      `username=${gone.username}`,
      `company_id=${gone.company_id}`,
      `id=${gone.id}`,
      `network_url=${enc(gone.network_url)}`,
    ]) {
      const res = await get(query);
      expect(res.status).toBe(451);
      expect(res.body.code).toBe('DATA_SUBJECT_BLOCKED');
    }
  });
});
