import type { ParameterizedContext } from 'koa';
import type { Operation } from 'openapi-backend';
import type { Principal } from '../domain/auth/principal';
import type { Grant, QuotaState } from '../domain/ratelimit/rateLimits';
import type { SessionContext } from '../domain/workspaces/sessions';

/** What the middleware chain learns about a request, in the order it learns it. */
export interface RequestState {
  requestId: string;
  startedAt: bigint;
  /** The contract operation the request matched (route middleware). */
  operation?: Operation;
  principal?: Principal;
  /** Set when the principal came from the dashboard's session cookie (http/session.ts). */
  session?: SessionContext;
  quotas?: QuotaState;
  /** The points the rate-limit step took for this request (limits.ts gives them back on a 5xx). */
  granted?: Grant;
  /** Non-contract routes (docs, raw spec, metrics) opt out of the JSON envelope. */
  raw?: boolean;
  body?: unknown;
  /**
   * The handler's JSON body (a plain object), kept here rather than in `ctx.body` until the edge
   * writes it in its envelope: Koa's body setter would only look up and then drop a type and a
   * length for an object the edge replaces with text.
   */
  answer?: Record<string, unknown>;
  /**
   * The handler's own headers (an ETag) for that JSON body, kept with it: the edge writes them with
   * its own in one `writeHead` (edge.ts `writeAnswer`), or sets them on the response for any other
   * answer.
   */
  headers?: Record<string, string>;
}

export type AppContext = ParameterizedContext<RequestState>;

/**
 * One stage of the API's request pipeline (route, authenticate, rate limit, body, dispatch): it
 * reads and fills ctx.state, throws to answer an error, and returns a promise only when it has to
 * wait for something. runSteps runs them in order without a middleware frame, a `next` closure or
 * a promise per stage (koa-compose gives each middleware all three).
 */
export type Step = (ctx: AppContext) => void | Promise<void>;

export function runSteps(ctx: AppContext, steps: readonly Step[], from = 0): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const pending = steps[i](ctx);
    if (pending instanceof Promise) return i + 1 < steps.length ? pending.then(() => runSteps(ctx, steps, i + 1)) : pending;
  }
}
