/**
 * The queue's fairness rules (issue 34, point 7), on the real claim: at most
 * JOB_CONCURRENT_PER_WORKSPACE jobs of a workspace run at once (the others wait queued), jobs are
 * claimed round robin, and the retention sweep deletes expired jobs with their rows; an upload
 * broken off mid-body leaves nothing.
 */
import { claimChunks } from '../../../src/db/repositories/listJobs';
import { deleteExpiredJobs } from '../../../src/domain/jobs/work';
import { upload, useJobsHarness } from '../../helpers/listJobs';

const h = useJobsHarness({ chunkRows: 1 });

describe('the list job queue', () => {
  it('runs at most the bound of a workspace\'s jobs at once, and takes the jobs round robin', async () => {
    const a = await h.workspace({ rateLimit: 1000 });
    const b = await h.workspace({ rateLimit: 1000 });
    const rows = 'email\nx1@example.org\nx2@example.org\nx3@example.org\n';
    const a1 = (await upload(h, a.key, rows)).body.job.id;
    const a2 = (await upload(h, a.key, rows)).body.job.id;
    const b1 = (await upload(h, b.key, rows)).body.job.id;

    const first = await claimChunks(h.knex, { token: '00000000-0000-4000-8000-000000000001', limit: 10, leaseSeconds: 60, perWorkspace: 1 });
    // One chunk per job per claim, a2 not started (a1 runs), b1 started.
    expect(first.map((c) => c.job_id).sort()).toEqual([a1, b1].sort());
    const status = async (id: string) => (await h.get(`/api/v1/jobs/${id}`, id === b1 ? b.key : a.key)).body.job.status;
    expect([await status(a1), await status(a2), await status(b1)]).toEqual(['running', 'queued', 'running']);

    // The next claim takes the next chunk of each running job, still not a2.
    const second = await claimChunks(h.knex, { token: '00000000-0000-4000-8000-000000000002', limit: 10, leaseSeconds: 60, perWorkspace: 1 });
    expect(second.map((c) => [c.job_id, c.chunk_no]).sort()).toEqual([[a1, 1], [b1, 1]].sort());
    // With a bound of 2, a2 starts too.
    const third = await claimChunks(h.knex, { token: '00000000-0000-4000-8000-000000000003', limit: 10, leaseSeconds: 60, perWorkspace: 2 });
    expect(third.map((c) => c.job_id)).toContain(a2);
  });

  it('deletes jobs past their retention with their rows and chunks', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const id = (await upload(h, key, 'email\nold@example.org\n')).body.job.id;
    await h.knex('list_jobs').where('id', id).update({ expires_at: h.knex.raw("now() - interval '1 second'") });
    expect(await deleteExpiredJobs(h.knex)).toBeGreaterThanOrEqual(1);
    expect((await h.get(`/api/v1/jobs/${id}`, key)).status).toBe(404);
    for (const table of ['list_job_rows', 'list_job_chunks']) {
      expect(Number((await h.knex(table).where('job_id', id).count('* as n'))[0]!.n)).toBe(0);
    }
  });
});

describe('POST /jobs broken off mid-body', () => {
  it('keeps nothing when the client closes the connection before the end of the upload', async () => {
    const http = await import('node:http');
    const { workspaceId, key } = await h.workspace({ rateLimit: 100 });
    const server = http.createServer(h.app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/jobs', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/csv', 'Content-Length': '200000' } });
      req.on('error', () => undefined);
      // More than one batch of rows, so the job exists in the database before the break.
      req.write(`email\n${Array.from({ length: 3000 }, (_, i) => `p${i}@example.org`).join('\n')}\n`);
      // Wait until the first batch is stored (the job row exists, uploading), then break off.
      const until = Date.now() + 30_000;
      while (Number((await h.knex('list_jobs').where('workspace_id', workspaceId).count('* as n'))[0]!.n) === 0 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const appeared = Number((await h.knex('list_jobs').where('workspace_id', workspaceId).count('* as n'))[0]!.n);
      req.destroy();
      expect(appeared).toBe(1);
      const gone = Date.now() + 30_000;
      while (Number((await h.knex('list_jobs').where('workspace_id', workspaceId).count('* as n'))[0]!.n) > 0 && Date.now() < gone) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(Number((await h.knex('list_jobs').where('workspace_id', workspaceId).count('* as n'))[0]!.n)).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
