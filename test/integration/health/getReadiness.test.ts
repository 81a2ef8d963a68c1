/**
 * GET /health/ready. 503 (the database stopped, paused or unreachable) is proven against a real
 * PostgreSQL that the faults suite stops and pauses: test/faults/postgres.test.ts; Redis down
 * (still ready, `checks.redis`): test/faults/redis.test.ts.
 */
import { createHarness, type Harness } from '../../helpers/harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { anonymousRateLimit: 5 } });
});
afterAll(() => h.close());

describe('GET /health/ready', () => {
  it('answers 200 {ok: true} with the checks when the database answers, without a key, in the envelope', async () => {
    const res = await h.get('/api/v1/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.checks).toEqual({ database: 'up', redis: 'not_configured' });
    expect(res.body.metadata.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['cache-control']).toBe('no-store, private');
  });

  it('is rate limited per client address with 429 and Retry-After', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await h.get('/api/v1/health/ready'));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(limited[0].body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
