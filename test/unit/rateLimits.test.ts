import { RateLimits } from '../../src/domain/ratelimit/rateLimits';
import { rateLimitHeaders, rateLimitRemaining } from '../../src/http/rateLimitHeaders';

const principal = (over: Partial<{ workspaceLimit: number; memberAllowance: number | null; accountId: string }> = {}) => ({
  workspaceId: `ws-${Math.random()}`,
  workspaceLimit: 5,
  accountId: `acc-${Math.random()}`,
  memberAllowance: null,
  ...over,
});

describe('RateLimits (memory store)', () => {
  it('close() forgets every window (and with them the store\'s expiry timers)', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const p = principal({ workspaceLimit: 5, memberAllowance: 3 });
    await limits.consume(p);
    await limits.consume(p);
    await limits.consumeAnonymous('203.0.113.7', 10);
    expect((await limits.peek(p)).workspace.remaining).toBe(3);
    await limits.close();
    expect(await limits.peek(p)).toMatchObject({ workspace: { remaining: 5 }, member: { remaining: 3 } });
    expect((await limits.peekAnonymous('203.0.113.7', 10)).workspace.remaining).toBe(10);
  });

  it('admits exactly the limit out of concurrent requests', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const p = principal({ workspaceLimit: 20 });
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limits.consume(p)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused.refusedBy).toBe('workspace');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Sliding windows: at most until the middle of the next window (see the burst tests below).
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(120);
    expect(refused.quotas.workspace.remaining).toBe(0);
  });

  it('lets the member window stop a request without using workspace quota', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const member = principal({ workspaceLimit: 10, memberAllowance: 3 });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await limits.consume(member));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
    expect(results[3].refusedBy).toBe('member');
    // Two refusals by the member window: the workspace only counted the three admitted requests.
    const peek = await limits.peek(member);
    expect(peek.workspace.remaining).toBe(7);
    expect(peek.member?.remaining).toBe(0);
  });

  it('gives the member point back when the workspace window refuses', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const workspaceId = `ws-${Math.random()}`;
    const a = { ...principal({ workspaceLimit: 2, memberAllowance: 2 }), workspaceId };
    const owner = { ...principal({ workspaceLimit: 2 }), workspaceId };
    expect((await limits.consume(owner)).allowed).toBe(true);
    expect((await limits.consume(owner)).allowed).toBe(true);
    const refused = await limits.consume(a);
    expect(refused).toMatchObject({ allowed: false, refusedBy: 'workspace' });
    expect((await limits.peek(a)).member?.remaining).toBe(2);
  });

  it('peeks without consuming and reports a fresh window for unknown keys', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const p = principal();
    const before = await limits.peek(p);
    expect(before.workspace).toMatchObject({ limit: 5, remaining: 5 });
    expect(before.member).toBeUndefined();
    await limits.peek(p);
    expect((await limits.consume(p)).quotas.workspace.remaining).toBe(4);
  });

  it('limits anonymous traffic per address', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const a = await Promise.all(Array.from({ length: 4 }, () => limits.consumeAnonymous('10.0.0.1', 3)));
    expect(a.filter((d) => d.allowed)).toHaveLength(3);
    expect((await limits.consumeAnonymous('10.0.0.2', 3)).allowed).toBe(true);
  });
});

describe('sliding windows (fake clock)', () => {
  const W = 60_000;
  const clock = (start: number) => {
    let t = start;
    return { now: () => t, set: (v: number) => (t = v) };
  };

  it('a burst across a window boundary admits the limit, not twice it (the fixed window admitted 40 of 40 in 1.04 s for 20)', async () => {
    const c = clock(100 * W + 59_500); // half a second before a boundary
    const limits = new RateLimits({ windowSeconds: 60, now: c.now });
    const p = principal({ workspaceLimit: 20 });
    let admitted = 0;
    for (let i = 0; i < 20; i++) if ((await limits.consume(p)).allowed) admitted++;
    c.set(100 * W + 60_540); // 1.04 s later, just past the boundary
    for (let i = 0; i < 20; i++) if ((await limits.consume(p)).allowed) admitted++;
    expect(admitted).toBe(20);
  });

  it('after a burst, admissions resume at the steady rate: about limit × t / window more over t', async () => {
    const c = clock(200 * W + 59_000);
    const limits = new RateLimits({ windowSeconds: 60, now: c.now });
    const p = principal({ workspaceLimit: 20 });
    for (let i = 0; i < 20; i++) await limits.consume(p);
    c.set(201 * W + 30_000); // half-way into the next window: the burst weighs half
    let more = 0;
    for (let i = 0; i < 20; i++) if ((await limits.consume(p)).allowed) more++;
    expect(more).toBe(10);
    c.set(202 * W + 59_999); // the burst's window no longer counts; the 10 weigh almost nothing
    const late = await limits.consume(p);
    expect(late.allowed).toBe(true);
    expect(late.quotas.workspace.remaining).toBe(18); // 20 − 1 − (10 × a sliver), rounded down
  });

  it('Retry-After is when a request fits again', async () => {
    const c = clock(300 * W + 10_000);
    const limits = new RateLimits({ windowSeconds: 60, now: c.now });
    const p = principal({ workspaceLimit: 5 });
    for (let i = 0; i < 5; i++) await limits.consume(p);
    const refused = await limits.consume(p);
    expect(refused.allowed).toBe(false);
    c.set(c.now() + (refused.retryAfterSeconds! - 1) * 1000);
    expect((await limits.consume(p)).allowed).toBe(false);
    c.set(c.now() + 1000);
    expect((await limits.consume(p)).allowed).toBe(true);
  });

  it.each([
    ['a burst in one window (the next fits in the next window)', 10_000, 5, 0],
    ['a full previous window (the next fits once it weighs less)', 59_000, 5, 5],
  ])('after a 429, reset_at is the instant a request fits again: %s', async (_label, offset, limit, before) => {
    const c = clock(500 * W + offset);
    const limits = new RateLimits({ windowSeconds: 60, now: c.now });
    const p = principal({ workspaceLimit: limit });
    for (let i = 0; i < before; i++) await limits.consume(p);
    c.set(501 * W + offset);
    while ((await limits.consume(p)).allowed);
    const refused = await limits.consume(p);
    expect(refused.allowed).toBe(false);
    const resetAt = refused.quotas.workspace.resetAt.getTime();
    // Retry-After and the RateLimit header's t state the same instant, rounded up to a second.
    expect(refused.retryAfterSeconds).toBe(Math.ceil((resetAt - c.now()) / 1000));
    expect(rateLimitRemaining(refused.quotas, c.now())).toBe(`"workspace";r=0;t=${refused.retryAfterSeconds}`);
    // A millisecond earlier it does not fit; at reset_at it does.
    c.set(resetAt - 1);
    expect((await limits.consume(p)).allowed).toBe(false);
    c.set(resetAt);
    expect((await limits.consume(p)).allowed).toBe(true);
  });

  it('refused requests do not count', async () => {
    const c = clock(400 * W + 1000);
    const limits = new RateLimits({ windowSeconds: 60, now: c.now });
    const p = principal({ workspaceLimit: 3 });
    for (let i = 0; i < 50; i++) await limits.consume(p);
    c.set(401 * W + 59_000); // the previous window (3 admitted) weighs 1/60
    expect((await limits.consume(p)).allowed).toBe(true);
  });
});

describe('rateLimitHeaders', () => {
  const resetAt = new Date(Date.now() + 30_000);
  it('describes the workspace policy and window', () => {
    const h = rateLimitHeaders({ workspace: { limit: 500, remaining: 499, resetAt } }, 60);
    expect(h['RateLimit-Policy']).toBe('"workspace";q=500;w=60');
    expect(h.RateLimit).toMatch(/^"workspace";r=499;t=(29|30)$/);
  });
  it('lists both policies and reports the tighter window', () => {
    const h = rateLimitHeaders(
      { workspace: { limit: 500, remaining: 400, resetAt }, member: { limit: 50, remaining: 10, resetAt } },
      60,
    );
    expect(h['RateLimit-Policy']).toBe('"workspace";q=500;w=60, "member";q=50;w=60');
    expect(h.RateLimit).toMatch(/^"member";r=10;t=/);
  });
});
