import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });

describe('GET /monitors/{id}', () => {
  it('returns the monitor as created; 404 for another workspace, an unknown id and a deleted one; 400 for a malformed id', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const created = (await h.post('/api/v1/monitors', monitorBody({ label: 'x' }), mine.key)).body.monitor;
    const res = await h.get(`/api/v1/monitors/${created.id}`, mine.key);
    expect(res.status).toBe(200);
    expect(res.body.monitor).toEqual(created);
    expect(JSON.stringify(res.body)).not.toMatch(/whsec_|secret/i);
    expect(await h.get(`/api/v1/monitors/${created.id.toUpperCase()}`, mine.key).then((r) => r.status)).toBe(200);

    const foreign = await h.get(`/api/v1/monitors/${created.id}`, theirs.key);
    const unknown = await h.get('/api/v1/monitors/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect(foreign.body.error).toBe(unknown.body.error);

    await h.send(h.http.delete(`/api/v1/monitors/${created.id}`).set('Authorization', `Bearer ${mine.key}`));
    expect((await h.get(`/api/v1/monitors/${created.id}`, mine.key)).status).toBe(404);
    const malformed = await h.get('/api/v1/monitors/not-a-uuid', mine.key);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });
});
