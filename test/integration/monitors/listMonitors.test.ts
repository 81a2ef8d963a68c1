import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });

describe('GET /monitors', () => {
  it('lists the workspace monitors, newest first, and only its own; never a secret', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    expect((await h.get('/api/v1/monitors', mine.key)).body.monitors).toEqual([]);
    const first = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    const second = (await h.post('/api/v1/monitors', monitorBody({ type: 'company', subject_url: 'https://www.linkedin.com/company/acme' }), mine.key)).body.monitor;
    await h.post('/api/v1/monitors', monitorBody(), theirs.key);
    const res = await h.get('/api/v1/monitors', mine.key);
    expect(res.status).toBe(200);
    expect(res.body.monitors).toEqual([second, first]);
    expect(JSON.stringify(res.body)).not.toMatch(/whsec_|secret/i);
    expect((await h.get('/api/v1/monitors', theirs.key)).body.monitors).toHaveLength(1);
  });

  it('an unknown query parameter is a 400', async () => {
    const { key } = await h.workspace();
    const res = await h.get('/api/v1/monitors?page=2', key);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});
