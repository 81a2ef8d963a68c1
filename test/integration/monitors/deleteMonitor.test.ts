import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });
const del = (path: string, key: string) => h.send(h.http.delete(path).set('Authorization', `Bearer ${key}`));

describe.each([
  ['DELETE /monitors?id=', (id: string) => `/api/v1/monitors?id=${id}`],
  ['DELETE /monitors/{id}', (id: string) => `/api/v1/monitors/${id}`],
])('%s', (_name, path) => {
  it('{ok: true}, then the monitor is gone; 404 twice, for another workspace and for an unknown id; 400 when malformed', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const created = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;

    const foreign = await del(path(created.id), theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect((await h.get(`/api/v1/monitors/${created.id}`, mine.key)).status).toBe(200);

    const res = await del(path(created.id), mine.key);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect((await h.get('/api/v1/monitors', mine.key)).body.monitors).toEqual([]);
    expect(await h.knex('monitors').where('id', created.id).first()).toBeUndefined();

    const again = await del(path(created.id), mine.key);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe(foreign.body.error);
    expect((await del(path('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'), mine.key)).status).toBe(404);
    const malformed = await del(path('42'), mine.key);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });
});
