/** DELETE /jobs/{id}: the job, its stored upload and results are gone at once. */
import { useHarness } from '../../helpers/harness';
import * as repo from '../../../src/db/repositories/listJobs';
import { deleteExpiredJobs } from '../../../src/domain/jobs/work';
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

describe('deleting a large job in bounded steps', () => {
  const rows = (n: number) => 'email\n' + Array.from({ length: n }, (_, i) => `p${i}@example.org`).join('\n') + '\n';
  const count = async (table: string, col: string, id: string) => Number((await h.knex(table).where(col, id).count('* as n'))[0]!.n);

  it('removes a job of several purge batches before answering', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, rows(4_500))).body.job.id;
    expect(await count('list_job_rows', 'job_id', id)).toBe(4_500);
    const res = await h.send(h.http.delete(`/api/v1/jobs/${id}`).set('Authorization', `Bearer ${key}`));
    expect(res.status).toBe(200);
    expect(await count('list_job_rows', 'job_id', id)).toBe(0);
    expect(await count('list_jobs', 'id', id)).toBe(0);
  });

  it('a job marked deleted whose rows remain is a 404 at once, unlisted, not deleted twice, and the sweep removes it', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, rows(300))).body.job.id;
    const kept = (await upload(h, key, rows(2))).body.job.id;
    // As DELETE leaves a large job whose purge ran out of time: marked, rows still stored.
    expect(await repo.deleteJob(h.knex, (await h.knex('list_jobs').where('id', id).first()).workspace_id, id)).toBe(true);
    expect(await count('list_job_rows', 'job_id', id)).toBe(300);

    expect((await h.get(`/api/v1/jobs/${id}`, key)).status).toBe(404);
    expect((await h.get(`/api/v1/jobs/${id}/results`, key)).status).toBe(404);
    expect((await h.send(h.http.delete(`/api/v1/jobs/${id}`).set('Authorization', `Bearer ${key}`))).status).toBe(404);
    const listed = await h.get('/api/v1/jobs', key);
    expect(listed.status).toBe(200);
    expect(listed.body.results.map((j: { id: string }) => j.id)).toEqual([kept]);

    await deleteExpiredJobs(h.knex);
    expect(await count('list_job_rows', 'job_id', id)).toBe(0);
    expect(await count('list_jobs', 'id', id)).toBe(0);
    expect(await count('list_job_rows', 'job_id', kept)).toBe(2);
  });
});
