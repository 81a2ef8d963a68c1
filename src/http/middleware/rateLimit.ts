/** 429 with Retry-After when a window is exhausted; records the windows for the envelope. */
import { AppError } from '../../domain/errors';
import type { Decision, RateLimits } from '../../domain/ratelimit/rateLimits';
import { clientAddress } from '../clientAddress';
import type { AppContext, Step } from '../state';

export function rateLimit(deps: { rateLimits: RateLimits; anonymousRateLimit: number }): Step {
  return (ctx) => {
    if (!ctx.state.operation) return;
    const principal = ctx.state.principal;
    const decision = principal
      ? deps.rateLimits.consume(principal)
      : deps.rateLimits.consumeAnonymous(clientAddress(ctx), deps.anonymousRateLimit);
    // In memory the decision is there at once; from Redis it comes later.
    if (decision instanceof Promise) return decision.then((d) => apply(ctx, d));
    apply(ctx, decision);
  };
}

function apply(ctx: AppContext, decision: Decision): void {
  ctx.state.quotas = decision.quotas;
  if (!decision.allowed) {
    const scope = decision.refusedBy === 'member' ? "this key's member allowance" : 'the rate limit';
    throw new AppError('RATE_LIMIT_EXCEEDED', `Too many requests: ${scope} is used up for this window`, {
      'Retry-After': String(decision.retryAfterSeconds),
    });
  }
}
