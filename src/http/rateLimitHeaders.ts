import type { QuotaState, WindowState } from '../domain/ratelimit/rateLimits';

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): every policy in
 * RateLimit-Policy, and in RateLimit the window that will stop requests first.
 */
export function rateLimitHeaders(q: QuotaState, windowSeconds: number): Record<string, string> {
  const now = Date.now();
  const secondsLeft = (w: WindowState) => Math.max(0, Math.ceil((w.resetAt.getTime() - now) / 1000));
  const policies = [`"workspace";q=${q.workspace.limit};w=${windowSeconds}`];
  let tightest: [string, WindowState] = ['workspace', q.workspace];
  if (q.member) {
    policies.push(`"member";q=${q.member.limit};w=${windowSeconds}`);
    if (q.member.remaining < q.workspace.remaining) tightest = ['member', q.member];
  }
  return {
    'RateLimit-Policy': policies.join(', '),
    RateLimit: `"${tightest[0]}";r=${tightest[1].remaining};t=${secondsLeft(tightest[1])}`,
  };
}
