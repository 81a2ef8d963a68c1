/** DELETE /jobs/{id}: the job, its stored upload and results are gone at once. */
import { useHarness } from '../../helpers/harness';
import { upload } from '../../helpers/listJobs';

const h = useHarness({ config: { jobs: { ...(jest.requireActual('../../../src/config') as typeof import('../../../src/config')).loadConfig({}).jobs, inProcess: false } } });

describe('DELETE /jobs/{id}', () => {
  it('deletes the job with its rows and chunks; another workspace gets 404 and deletes nothing', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const other = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, 'email\na@example.org\nb@example.org\n')).body.job.id;
    const foreign = await h.send(h.http.delete(`/api/v1/jobs/${id}`).set('Authorization', `Bearer ${other.key}`));
    expect(foreign.status).toBe(404);
    expect(Number((await h.knex('list_job_rows').where('job_id', id).count('* as n'))[0]!.n)).toBe(2);

    const res = await h.send(h.http.delete(`/api/v1/jobs/${id}`).set('Authorization', `Bearer ${key}`));
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    for (const table of ['list_jobs', 'list_job_rows', 'list_job_chunks']) {
      expect(Number((await h.knex(table).where(table === 'list_jobs' ? 'id' : 'job_id', id).count('* as n'))[0]!.n)).toBe(0);
    }
    expect((await h.get(`/api/v1/jobs/${id}`, key)).status).toBe(404);
  });
});
