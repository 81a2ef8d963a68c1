import type { ParameterizedContext } from 'koa';
import type { Operation } from 'openapi-backend';
import type { Principal } from '../domain/auth/principal';
import type { QuotaState } from '../domain/ratelimit/rateLimits';
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
  /** Non-contract routes (docs, raw spec, metrics) opt out of the JSON envelope. */
  raw?: boolean;
  body?: unknown;
}

export type AppContext = ParameterizedContext<RequestState>;
