import Redis from 'ioredis';
import { createKey, setRateLimit } from '../../../src/domain/workspaces/admin';
import { freePort } from '../../../src/db/embedded';
import { createHarness, type Harness } from '../../helpers/harness';
import { closeSources, httpSource } from '../../helpers/live';

async function burst(h: Harness, key: string, n: number) {
  return Promise.all(Array.from({ length: n }, () => h.get('/api/v1/account', key)));
}

function statuses(answers: { status: number }[]) {
  return { ok: answers.filter((r) => r.status === 200).length, limited: answers.filter((r) => r.status === 429).length };
}

/** A live source on a port where nothing listens: every realtime call of a subject not in the lake fails for real, at once. */
async function closedSource() {
  return httpSource(`http://127.0.0.1:${await freePort()}/`);
}

/**
 * Answers the service failed to give (503: here the live source refusing connections) use none of
 * the caller's windows, workspace and member; the answers themselves show the window untouched;
 * the admitted count afterwards is the full limit.
 */
async function failuresDoNotCount(h: Harness, admit: (key: string, n: number) => Promise<{ status: number }[]>) {
  const { workspaceId, key } = await h.workspace({ rateLimit: 4 });
  const member = await h.memberKey(workspaceId, 'failing', 3);
  for (const k of [key, member]) {
    // One after another, so each answer's window is the state the one before left.
    const failed = [];
    for (let i = 0; i < 6; i++) failed.push(await h.get('/api/v1/person/realtime?username=nobody-in-the-lake', k));
    for (const res of failed) {
      expect([res.status, res.body.code]).toEqual([503, 'LIVE_SOURCE_UNAVAILABLE']);
      expect(res.body.quotas.rate_limit.workspace.remaining).toBe(4);
    }
    if (k === member) for (const res of failed) expect(res.body.quotas.rate_limit.member.remaining).toBe(3);
  }
  // The member's allowance (3) is whole, and the workspace (4) has one more for the owner.
  expect(statuses(await admit(member, 5))).toEqual({ ok: 3, limited: 2 });
  expect(statuses(await admit(key, 3))).toEqual({ ok: 1, limited: 2 });
}

describe('rate limit, in-memory store', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ liveSource: await closedSource() });
  });
  afterAll(async () => {
    await h.close();
    await closeSources();
  });

  it('answers the service failed to give (5xx) use no point of any window', async () => {
    await failuresDoNotCount(h, (key, n) => burst(h, key, n));
  });

  it('with a limit of 20 and 60 concurrent requests exactly 20 succeed', async () => {
    const { key } = await h.workspace({ rateLimit: 20 });
    const answers = await burst(h, key, 60);
    expect(statuses(answers)).toEqual({ ok: 20, limited: 40 });
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.headers['retry-after']).toMatch(/^[0-9]+$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.quotas.rate_limit.workspace).toMatchObject({ limit: 20, remaining: 0 });
    expect(refused.headers['ratelimit']).toMatch(/^"workspace";r=0;t=[0-9]+$/);
  });

  it('shows the workspace window on every response, counting down', async () => {
    const { key } = await h.workspace({ rateLimit: 500 });
    const first = await h.get('/api/v1/account', key);
    const second = await h.get('/api/v1/account', key);
    expect(first.body.quotas.rate_limit.workspace).toMatchObject({ limit: 500, remaining: 499 });
    expect(second.body.quotas.rate_limit.workspace.remaining).toBe(498);
    expect(first.body.quotas.rate_limit.member).toBeUndefined();
    const resetAt = new Date(first.body.quotas.rate_limit.workspace.reset_at).getTime();
    expect(resetAt).toBeGreaterThan(Date.now());
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(first.headers['ratelimit-policy']).toBe('"workspace";q=500;w=60');
  });

  it('a member allowance stops the member first, without using workspace quota', async () => {
    const { workspaceId, key: ownerKey } = await h.workspace({ rateLimit: 100 });
    const memberKey = await h.memberKey(workspaceId, 'intern', 3);
    const answers = await burst(h, memberKey, 8);
    expect(statuses(answers)).toEqual({ ok: 3, limited: 5 });
    const refused = answers.find((r) => r.status === 429)!;
    expect(refused.body.quotas.rate_limit.member).toMatchObject({ limit: 3, remaining: 0 });
    expect(refused.headers['ratelimit']).toMatch(/^"member";r=0;/);
    // Only the three admitted member requests were counted by the workspace window.
    const owner = await h.get('/api/v1/account', ownerKey);
    expect(owner.status).toBe(200);
    expect(owner.body.quotas.rate_limit.workspace.remaining).toBe(100 - 3 - 1);
  });

  it('the workspace window stops members too when it is tighter', async () => {
    const { workspaceId } = await h.workspace({ rateLimit: 5 });
    const a = await h.memberKey(workspaceId, 'a', 4);
    const b = await h.memberKey(workspaceId, 'b', 4);
    const answers = [...(await burst(h, a, 4)), ...(await burst(h, b, 4))];
    expect(statuses(answers)).toEqual({ ok: 5, limited: 3 });
  });

  it('a request refused before any work (a bulk of 501 ids, 400) counts like any other (decided and documented)', async () => {
    const { key } = await h.workspace({ rateLimit: 50 });
    const ids = Array.from({ length: 501 }, () => '3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f');
    const refused = await h.post('/api/v1/people/bulk', { ids }, key);
    expect(refused.status).toBe(400);
    expect(refused.body.quotas.rate_limit.workspace.remaining).toBe(49);
    const next = await h.get('/api/v1/account', key);
    expect(next.body.quotas.rate_limit.workspace.remaining).toBe(48);
  });

  it('a workspace limit change applies at once', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 100 });
    await burst(h, key, 3);
    await setRateLimit(h.knex, workspaceId, 4);
    // The LISTEN/NOTIFY invalidation is asynchronous: wait until the app has applied it.
    await h.authChangesApplied();
    expect(statuses(await burst(h, key, 3))).toEqual({ ok: 1, limited: 2 });
  });
});

const redisUrl = process.env.REDIS_URL;
describe('after a 429, the answer says when to come back, and it is true', () => {
  let h: Harness;
  beforeAll(async () => {
    // A 2-second window so the wait is short; the rule is the same for any window.
    h = await createHarness({ config: { rateLimitWindowSeconds: 2 } });
  });
  afterAll(() => h.close());

  it('reset_at, Retry-After and RateLimit t name one instant; a client that waits until reset_at is admitted', async () => {
    const { key } = await h.workspace({ rateLimit: 3 });
    let refused: Awaited<ReturnType<typeof h.get>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await h.get('/api/v1/account', key);
      if (res.status === 429) refused = res;
    }
    expect(refused).toBeDefined();
    const window = refused!.body.quotas.rate_limit.workspace;
    const resetAt = Date.parse(window.reset_at);
    const retryAfter = Number(refused!.headers['retry-after']);
    const t = Number(/;t=([0-9]+)$/.exec(refused!.headers['ratelimit'])![1]);
    // Whole seconds rounded up from the same instant (computed a moment apart, so at most one apart).
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect([retryAfter - 1, retryAfter]).toContain(t);
    expect(resetAt).toBeLessThanOrEqual(Date.now() + retryAfter * 1000);
    // Wait until reset_at (not a second more), then ask again: admitted.
    while (Date.now() < resetAt) await new Promise((r) => setTimeout(r, resetAt - Date.now()));
    const retry = await h.get('/api/v1/account', key);
    expect(retry.status).toBe(200);
  });
});

const describeRedis = redisUrl ? describe : describe.skip;
if (!redisUrl) {
  // eslint-disable-next-line no-console
  console.log('REDIS_URL is not set: skipping the Redis rate-limit store tests (CI sets it).');
}

describeRedis('rate limit, Redis store (REDIS_URL)', () => {
  let redisA: Redis;
  let redisB: Redis;
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    redisA = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    redisB = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    const source = await closedSource();
    a = await createHarness({ redis: redisA, liveSource: source });
    b = await createHarness({ redis: redisB, liveSource: source });
    expect(a.app.rateLimits.store).toBe('redis');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redisA.quit();
    await redisB.quit();
    await closeSources();
  });

  it('answers the service failed to give (5xx) on one instance use no point of the shared windows', async () => {
    // The failures on instance a, the admissions counted on b: the points went back to Redis.
    await failuresDoNotCount(a, (key, n) => burst(b, key, n));
  });

  it('with a limit of 20 and 60 concurrent requests exactly 20 succeed', async () => {
    const { key } = await a.workspace({ rateLimit: 20 });
    expect(statuses(await burst(a, key, 60))).toEqual({ ok: 20, limited: 40 });
  });

  it('two server instances on one Redis together admit exactly the limit', async () => {
    const { workspaceId, key } = await a.workspace({ rateLimit: 20 });
    const second = (await createKey(a.knex, { workspaceId })).api_key;
    const answers = await Promise.all([...(await Promise.all([burst(a, key, 30), burst(b, second, 30)]))].flat());
    expect(statuses(answers)).toEqual({ ok: 20, limited: 40 });
  });

  it('member windows are shared across instances too', async () => {
    const { workspaceId } = await a.workspace({ rateLimit: 100 });
    const member = await a.memberKey(workspaceId, 'shared', 6);
    const answers = (await Promise.all([burst(a, member, 10), burst(b, member, 10)])).flat();
    expect(statuses(answers)).toEqual({ ok: 6, limited: 14 });
  });
});
