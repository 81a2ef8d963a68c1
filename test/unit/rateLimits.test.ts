import { RateLimits } from '../../src/domain/ratelimit/rateLimits';
import { rateLimitHeaders } from '../../src/http/rateLimitHeaders';

const principal = (over: Partial<{ workspaceLimit: number; memberAllowance: number | null; accountId: string }> = {}) => ({
  workspaceId: `ws-${Math.random()}`,
  workspaceLimit: 5,
  accountId: `acc-${Math.random()}`,
  memberAllowance: null,
  ...over,
});

describe('RateLimits (memory store)', () => {
  it('admits exactly the limit out of concurrent requests', async () => {
    const limits = new RateLimits({ windowSeconds: 60 });
    const p = principal({ workspaceLimit: 20 });
    const decisions = await Promise.all(Array.from({ length: 60 }, () => limits.consume(p)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused.refusedBy).toBe('workspace');
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
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
