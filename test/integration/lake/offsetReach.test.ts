/**
 * Offset paging reaches the first 10,000 results (issue 35): `page` × `per_page` over 10,000 is a
 * 400 PAGE_TOO_DEEP whose message points to `next_cursor`, on every list (one rule, in
 * domain/paging.ts pageOf); up to the reach, offset pages answer as before (a page past the last
 * one is empty with the real total). The contract's `page` maximum (1000) still answers
 * VALIDATION_ERROR first. Responses are validated against the contract by the harness.
 */
import { useHarness } from '../../helpers/harness';
import { personRecord } from '../../helpers/lakeRecords';
import { writeRecords } from '../../../src/domain/lake/write/writer';

const h = useHarness({ workspaceRateLimit: 10_000 });

const search = (body: object) => h.post('/api/v1/people/search', body, h.key());
// A city no other test file writes: the suite's files share one lake, so the filter must select
// exactly this file's two persons for their total to be known.
const CITY = 'Offsetreach Falls';

describe('offset paging reach', () => {
  beforeAll(async () => {
    await writeRecords(h.knex, 'person', [
      personRecord({ full_name: 'Reach One', geo_country_code: 'US', geo_city: CITY }),
      personRecord({ full_name: 'Reach Two', geo_country_code: 'US', geo_city: CITY }),
    ] as never);
  });

  it.each([
    ['page 100 × 100 (the 10,000th result is its last row)', { page: 100, per_page: 100 }],
    ['page 1000 × 10 (the contract page maximum)', { page: 1000, per_page: 10 }],
    ['page 400 × the default 25', { page: 400 }],
  ])('searchPeople %s: 200, empty past the last match, the real total', async (_name, paging) => {
    const res = await search({ location: 'US', city: CITY, ...paging });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.total).toBe(2);
    expect(res.body.page).toBe(paging.page);
  });

  it.each([
    ['page 101 × 100', { page: 101, per_page: 100 }, '101 × 100 = 10,100'],
    ['page 1000 × 100', { page: 1000, per_page: 100 }, '1000 × 100 = 100,000'],
    ['page 401 × the default 25', { page: 401 }, '401 × 25 = 10,025'],
    ['page 1000 × 11', { page: 1000, per_page: 11 }, '1000 × 11 = 11,000'],
  ])('searchPeople %s: 400 PAGE_TOO_DEEP pointing to the cursor', async (_name, paging, asked) => {
    const res = await search({ location: 'US', city: CITY, ...paging });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('PAGE_TOO_DEEP');
    expect(res.body.error).toContain(asked);
    expect(res.body.error).toContain('next_cursor');
    expect(res.body.error).toContain('10,000');
  });

  it('a cursor request is never refused for depth: the walk by cursor goes on past the reach', async () => {
    const first = await search({ location: 'US', city: CITY, per_page: 1 });
    expect(first.status).toBe(200);
    const second = await search({ location: 'US', city: CITY, per_page: 100, cursor: first.body.next_cursor });
    expect(second.status).toBe(200);
    expect(second.body.results.length).toBe(1);
    expect(second.body.results[0].id).not.toBe(first.body.results[0].id);
  });

  it('the same rule on GET lists (relationships, companies, workspace) and on company search', async () => {
    // [list, its answer at the reach]: the paging is checked before the subject is looked up, so an
    // unknown company is a 404 at the reach and a 400 past it.
    const lists: [string, number][] = [
      ['/api/v1/person/job-changes?within_months=3&', 200],
      ['/api/v1/company/current-employees?company_id=1234&', 404],
      ['/api/v1/institution/alumni?school=Nowhere&', 200],
      ['/api/v1/workspace/keys?', 200],
    ];
    for (const [path, atReachStatus] of lists) {
      const deep = await h.get(`${path}page=101&per_page=100`, h.key());
      expect([path, deep.status, deep.body.code]).toEqual([path, 400, 'PAGE_TOO_DEEP']);
      const atReach = await h.get(`${path}page=100&per_page=100`, h.key());
      expect([path, atReach.status]).toEqual([path, atReachStatus]);
    }
    const companies = await h.post('/api/v1/companies/search', { page: 201, per_page: 50 }, h.key());
    expect([companies.status, companies.body.code]).toEqual([400, 'PAGE_TOO_DEEP']);
    // Over the contract's page maximum the schema answers first, as before.
    const overMax = await search({ page: 1001, per_page: 10 });
    expect([overMax.status, overMax.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
