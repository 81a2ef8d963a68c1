/**
 * GET /company/history on its own: a company's changes, as the lake writer records them, newest
 * first. The full walk against a change log made by realtime, refresh and import, `since`, the
 * cursor and withdrawal, for persons and companies together, is test/integration/people/listPersonHistory.test.ts.
 */
import { useHarness } from '../../helpers/harness';
import { companyRecord, storeCompanies } from '../../helpers/lakeRecords';

const h = useHarness({ workspaceRateLimit: 100_000 });

describe('GET /company/history', () => {
  it('200: the changes of the company recorded by an import, newest first, found by username or company_id', async () => {
    const first = companyRecord({ name: 'Acme One' });
    await storeCompanies(h.knex, first);
    await storeCompanies(h.knex, { ...first, name: 'Acme Two', fetched_at: new Date(Date.parse(first.fetched_at) + 1000).toISOString() });
    await storeCompanies(h.knex, { ...first, name: 'Acme Three', fetched_at: new Date(Date.parse(first.fetched_at) + 2000).toISOString() });

    const res = await h.get(`/api/v1/company/history?username=${first.username}`, h.key());
    expect(res.status).toBe(200);
    expect(res.body.results.map((e: { event: string; detected_by: string }) => [e.event, e.detected_by])).toEqual([
      ['company.name_changed', 'import'],
      ['company.name_changed', 'import'],
    ]);
    const log = await h.knex('change_log').where('subject_id', first.id).orderBy('id', 'desc');
    expect(res.body.results.map((e: { id: string }) => e.id)).toEqual(log.map((e) => String(e.id)));

    const byId = await h.get(`/api/v1/company/history?company_id=${first.company_id}`, h.key());
    expect(byId.status).toBe(200);
    expect(byId.body.results).toEqual(res.body.results);
  });

  it('404 for a company that is not indexed', async () => {
    const res = await h.get('/api/v1/company/history?company_id=999999999', h.key());
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
