/** GET /jobs: the workspace's jobs newest first, cursor paging, nothing of another workspace. */
import { useHarness } from '../../helpers/harness';
import { upload } from '../../helpers/listJobs';

const h = useHarness({ config: { jobs: { ...jobsConfig(), inProcess: false } } });
function jobsConfig() {
  return (jest.requireActual('../../../src/config') as typeof import('../../../src/config')).loadConfig({}).jobs;
}

describe('GET /jobs', () => {
  it('lists the workspace\'s jobs newest first, pages by cursor, and shows no other workspace\'s', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const other = await h.workspace({ rateLimit: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(h, key, `email\nperson${i}@example.org\n`)).body.job.id);
    await upload(h, other.key, 'email\nsomeone@example.org\n');

    const first = await h.get('/api/v1/jobs?per_page=2', key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, total_relation: 'eq', per_page: 2 });
    expect(first.body.results.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
    const second = await h.get(`/api/v1/jobs?per_page=2&cursor=${first.body.next_cursor}`, key);
    expect(second.body.results.map((j: { id: string }) => j.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    expect(first.body.results[0]).toMatchObject({ status: 'queued', rows_read: 1, rows_done: 0, rows_per_second: null });
  });

  it('400 INVALID_CURSOR for a cursor of another list', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const res = await h.get('/api/v1/jobs?cursor=eyJrIjpbIngiXSwiaCI6Inh4In0', key);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_CURSOR');
  });
});
