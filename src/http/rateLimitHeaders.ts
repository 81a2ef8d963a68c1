import type { QuotaState, WindowState } from '../domain/ratelimit/rateLimits';

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): every policy in
 * RateLimit-Policy, and in RateLimit the window that will stop requests first.
 */
export function rateLimitHeaders(q: QuotaState, windowSeconds: number): Record<string, string> {
  return { 'RateLimit-Policy': rateLimitPolicy(q, windowSeconds), RateLimit: rateLimitRemaining(q, Date.now()) };
}

/** The RateLimit-Policy field: every window's quota. */
export function rateLimitPolicy(q: QuotaState, windowSeconds: number): string {
  const workspace = `"workspace";q=${q.workspace.limit};w=${windowSeconds}`;
  return q.member ? `${workspace}, "member";q=${q.member.limit};w=${windowSeconds}` : workspace;
}

/** The RateLimit field: the window that will stop requests first, what it has left and for how long. */
export function rateLimitRemaining(q: QuotaState, now: number): string {
  const member = q.member && q.member.remaining < q.workspace.remaining ? q.member : undefined;
  const w: WindowState = member ?? q.workspace;
  return `"${member ? 'member' : 'workspace'}";r=${w.remaining};t=${Math.max(0, Math.ceil((w.resetAt.getTime() - now) / 1000))}`;
}
