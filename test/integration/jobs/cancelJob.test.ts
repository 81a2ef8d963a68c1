/**
 * POST /jobs/{id}/cancel: a running job stops within a chunk and keeps what was done; a cancelled
 * job's chunks are never claimed again; a finished job is answered as it is.
 */
import { startWorker, upload, waitForJob, useJobsHarness } from '../../helpers/listJobs';

const h = useJobsHarness({ chunkRows: 20 });

const cancel = (id: string, key: string) => h.send(h.http.post(`/api/v1/jobs/${id}/cancel`).set('Authorization', `Bearer ${key}`));

describe('POST /jobs/{id}/cancel', () => {
  it('stops a running job, keeps its done rows, and claims nothing of it afterwards', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const rows = Array.from({ length: 2000 }, (_, i) => `Person${i} Nobody,Nowhere ${i} Corp`).join('\n');
    const id = (await upload(h, key, `name,company\n${rows}\n`)).body.job.id;
    const worker = startWorker(h, { concurrency: 1 });
    try {
      await waitForJob(h, key, id, (j) => j.rows_done > 0);
      const res = await cancel(id, key);
      expect(res.status).toBe(200);
      expect(res.body.job.status).toBe('cancelled');
      expect(res.body.job.finished_at).not.toBeNull();
      // At most the chunk in flight commits after the cancel; then nothing moves.
      const settled = await waitForJob(h, key, id, (j) => j.rows_done >= res.body.job.rows_done);
      await new Promise((r) => setTimeout(r, 1500));
      const later = (await h.get(`/api/v1/jobs/${id}`, key)).body.job;
      expect(later.status).toBe('cancelled');
      expect(later.rows_done).toBeLessThanOrEqual(res.body.job.rows_done + 20);
      expect(later.rows_done).toBeGreaterThanOrEqual(settled.rows_done);
      expect(later.rows_done).toBeLessThan(2000);
      const [n] = await h.knex('list_job_rows').where('job_id', id).whereNotNull('outcome').count('* as n');
      expect(Number(n!.n)).toBe(later.rows_done);
    } finally {
      await worker.stop();
    }
    // A cancelled job is answered as it is.
    const again = await cancel(id, key);
    expect(again.body.job.status).toBe('cancelled');
  }, 120_000);

  it('404 NOT_FOUND for another workspace\'s job', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const other = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, 'email\na@example.org\n')).body.job.id;
    const res = await cancel(id, other.key);
    expect(res.status).toBe(404);
    expect((await h.get(`/api/v1/jobs/${id}`, key)).body.job.status).toBe('queued');
  });
});
