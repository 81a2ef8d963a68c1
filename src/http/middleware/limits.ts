/**
 * The request edge's one owner of limits: every rule about windows, quotas and 429 answers is here.
 *
 * - `admit` (a pipeline step after authenticate): counts the request in its windows (the
 *   principal's workspace and member windows, or the client address's anonymous window) and
 *   answers 429 with Retry-After when one is used up.
 * - `guardKeyCheck`: key guessing is throttled per client address. Every refused key (401, on any
 *   operation that checks one: Authorization headers and the dashboard's sign-in with an API key
 *   or link alike) counts against the address's budget (AUTH_FAILURE_LIMIT per sliding window);
 *   once it is used up, checks are refused with 429 before any lookup. Keys already verified
 *   recently (cached) never reach it and keep working from the same address.
 * - `showWindows` / `quotasFor`: answers that consume nothing (401, 402, unknown paths) still show
 *   the caller's current window.
 * - `giveBack`: an admitted request the server failed to answer (5xx) does not count; the edge
 *   calls it with the final status, before the answer shows the windows.
 *
 * The counting itself (sliding windows, memory or Redis) is domain/ratelimit/rateLimits.ts.
 */
import { AppError } from '../../domain/errors';
import type { Decision, MaybePromise, PrincipalLimits, QuotaState, RateLimits } from '../../domain/ratelimit/rateLimits';
import { clientAddress } from '../clientAddress';
import type { AppContext, Step } from '../state';

export interface LimitsConfig {
  rateLimits: RateLimits;
  anonymousRateLimit: number;
  authFailureLimit: number;
}

export class Limits {
  constructor(private readonly deps: LimitsConfig) {}

  get windowSeconds(): number {
    return this.deps.rateLimits.windowSeconds;
  }

  /** The pipeline step: counts the request (principal or anonymous address), 429 when a window is used up. */
  readonly admit: Step = (ctx) => {
    if (!ctx.state.operation) return;
    const principal = ctx.state.principal;
    const decision = principal
      ? this.deps.rateLimits.consume(principal)
      : this.deps.rateLimits.consumeAnonymous(clientAddress(ctx), this.deps.anonymousRateLimit);
    // In memory the decision is there at once; from Redis it comes later.
    if (decision instanceof Promise) return decision.then((d) => refuseIfUsedUp(ctx, d));
    refuseIfUsedUp(ctx, decision);
  };

  /**
   * Runs a key check (`check` throws API_KEY_INVALID for a refused key) within the address's
   * failed-authentication budget: 429 before the check once the budget is used up; a refusal
   * counts one failure. A check that could not run (database down) counts nothing.
   */
  async guardKeyCheck<T>(ctx: AppContext, check: () => Promise<T>): Promise<T> {
    const address = clientAddress(ctx);
    const budget = await this.deps.rateLimits.authFailureBudget(address, this.deps.authFailureLimit);
    if (!budget.allowed) {
      ctx.state.quotas = budget.quotas;
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many failed authentications from this address: retry later', {
        'Retry-After': String(budget.retryAfterSeconds),
      });
    }
    try {
      return await check();
    } catch (err) {
      if (err instanceof AppError && err.code === 'API_KEY_INVALID') await this.deps.rateLimits.recordAuthFailure(address);
      throw err;
    }
  }

  /**
   * The server failed to answer an admitted request (5xx): its points go back to its windows, and
   * the answer shows the windows with them back. Nothing to do for a request that took none.
   */
  giveBack(ctx: AppContext): MaybePromise<void> {
    const granted = ctx.state.granted;
    if (!granted) return;
    ctx.state.granted = undefined;
    const quotas = ctx.state.quotas;
    if (quotas) ctx.state.quotas = { workspace: returned(quotas.workspace), ...(quotas.member ? { member: returned(quotas.member) } : {}) };
    // Never fail or hold an answer on the store: a failing store opens its breaker (rateLimits.ts).
    const done = this.deps.rateLimits.giveBack(granted);
    return done instanceof Promise ? done.catch(() => undefined) : done;
  }

  /** Records the principal's current windows on the answer without counting a request (402). */
  showWindows(ctx: AppContext, principal: PrincipalLimits): Promise<void> {
    return Promise.resolve(this.deps.rateLimits.peek(principal)).then((quotas) => {
      ctx.state.quotas = quotas;
    });
  }

  /** The windows an answer shows: those recorded on the request, else the address's anonymous window. */
  quotasFor(ctx: AppContext): MaybePromise<QuotaState> {
    if (ctx.state.quotas) return ctx.state.quotas;
    return this.quotasOfAddress(clientAddress(ctx));
  }

  /**
   * The anonymous window of a client address, without counting: what an answer shows when no
   * principal is known (also the HTTP server's own answers to requests it could not parse:
   * http/clientError.ts). Never fails: an unreachable store reports a fresh window.
   */
  quotasOfAddress(address: string): MaybePromise<QuotaState> {
    const { rateLimits, anonymousRateLimit } = this.deps;
    const fresh = (): QuotaState => {
      // Never fail an answer because the limiter store is unreachable: report a fresh window.
      const resetAt = new Date(Date.now() + rateLimits.windowSeconds * 1000);
      return { workspace: { limit: anonymousRateLimit, remaining: anonymousRateLimit, resetAt } };
    };
    try {
      const peeked = rateLimits.peekAnonymous(address, anonymousRateLimit);
      return peeked instanceof Promise ? peeked.catch(fresh) : peeked;
    } catch {
      return fresh();
    }
  }
}

/** A window with one request given back. */
function returned(w: QuotaState['workspace']): QuotaState['workspace'] {
  return { ...w, remaining: Math.min(w.limit, w.remaining + 1) };
}

function refuseIfUsedUp(ctx: AppContext, decision: Decision): void {
  ctx.state.quotas = decision.quotas;
  ctx.state.granted = decision.granted;
  if (!decision.allowed) {
    const scope = decision.refusedBy === 'member' ? "this key's member allowance" : 'the rate limit';
    throw new AppError('RATE_LIMIT_EXCEEDED', `Too many requests: ${scope} is used up for this window`, {
      'Retry-After': String(decision.retryAfterSeconds),
    });
  }
}
