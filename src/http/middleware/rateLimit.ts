/** 429 with Retry-After when a window is exhausted; records the windows for the envelope. */
import type { Middleware } from 'koa';
import { AppError } from '../../domain/errors';
import type { Decision, RateLimits } from '../../domain/ratelimit/rateLimits';
import { clientAddress } from '../clientAddress';
import type { RequestState } from '../state';

export function rateLimit(deps: { rateLimits: RateLimits; anonymousRateLimit: number }): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.state.operation) return next();
    const principal = ctx.state.principal;
    const decision: Decision = principal
      ? await deps.rateLimits.consume(principal)
      : await deps.rateLimits.consumeAnonymous(clientAddress(ctx), deps.anonymousRateLimit);
    ctx.state.quotas = decision.quotas;
    if (!decision.allowed) {
      const scope = decision.refusedBy === 'member' ? "this key's member allowance" : 'the rate limit';
      throw new AppError('RATE_LIMIT_EXCEEDED', `Too many requests: ${scope} is used up for this window`, {
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
    return next();
  };
}
