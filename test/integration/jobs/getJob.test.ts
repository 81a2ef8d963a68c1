/** GET /jobs/{id}: the job's progress; another workspace's job is 404 like a missing one. */
import { useHarness } from '../../helpers/harness';
import { upload } from '../../helpers/listJobs';

const h = useHarness({ config: { jobs: { ...(jest.requireActual('../../../src/config') as typeof import('../../../src/config')).loadConfig({}).jobs, inProcess: false } } });

describe('GET /jobs/{id}', () => {
  it('answers the job, and 404 NOT_FOUND for another workspace\'s or an unknown one; 400 for a malformed id', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const other = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, 'name,company\nJane Doe,Acme\n')).body.job.id;
    const res = await h.get(`/api/v1/jobs/${id}`, key);
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({ id, status: 'queued', rows_read: 1, error: null, started_at: null });
    expect(new Date(res.body.job.expires_at).getTime() - new Date(res.body.job.created_at).getTime()).toBe(7 * 86_400_000);
    for (const [k, path] of [
      [other.key, `/api/v1/jobs/${id}`],
      [key, '/api/v1/jobs/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const missing = await h.get(path, k);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('NOT_FOUND');
    }
    expect((await h.get('/api/v1/jobs/not-a-uuid', key)).status).toBe(400);
  });
});
