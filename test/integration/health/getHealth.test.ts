import { createHarness, type Harness } from '../../helpers/harness';
import packageJson from '../../../package.json';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { anonymousRateLimit: 5 } });
});
afterAll(() => h.close());

describe('GET /health', () => {
  it('answers {ok: true} without a key, in the envelope', async () => {
    const res = await h.get('/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.metadata.request_id).toBe(res.headers['x-request-id']);
    expect(res.body.quotas.rate_limit.workspace.limit).toBe(5);
  });

  it('names the running build: the package version and the commit (or null when not recorded)', async () => {
    const res = await h.get('/api/v1/health');
    expect(res.body.version).toBe(packageJson.version);
    expect(res.body.commit === null || /^[0-9a-f]{40}$/.test(res.body.commit)).toBe(true);
  });

  it('is rate limited per client address with 429 and Retry-After', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await h.get('/api/v1/health'));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(limited[0].body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited[0].body.quotas.rate_limit.workspace.remaining).toBe(0);
  });

  it('ignores an Authorization header, valid or not', async () => {
    const other = await createHarness({ config: { anonymousRateLimit: 100 } });
    try {
      const res = await other.send(other.http.get('/api/v1/health').set('Authorization', 'Bearer junk'));
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
