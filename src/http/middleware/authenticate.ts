/**
 * 401 for a missing/invalid key, 402 for a workspace without an active license (on the operations
 * whose contract documents 402). Neither consumes rate limit; the 402 answer still shows the
 * workspace's current window.
 */
import type { Middleware } from 'koa';
import type { Authenticator } from '../../domain/auth/authenticator';
import { licenseState } from '../../domain/auth/principal';
import { AppError } from '../../domain/errors';
import type { RateLimits } from '../../domain/ratelimit/rateLimits';
import type { RequestState } from '../state';

export function authenticate(deps: { authenticator: Authenticator; rateLimits: RateLimits }): Middleware<RequestState> {
  return async (ctx, next) => {
    const operation = ctx.state.operation;
    if (!operation || !requiresKey(operation.security)) return next();
    const principal = await deps.authenticator.authenticate(ctx.get('authorization') || undefined);
    const license = licenseState(principal);
    if (license !== 'active' && checksLicense(operation)) {
      ctx.state.quotas = await deps.rateLimits.peek(principal);
      throw new AppError(
        'LICENSE_INACTIVE',
        license === 'expired' ? 'The workspace license has expired' : 'The workspace has no active license',
      );
    }
    ctx.state.principal = principal;
    return next();
  };
}

/**
 * The contract says which operations the license gates: those that document a 402 answer. GET
 * /account does not (a customer must be able to see why everything else answers 402).
 */
function checksLicense(operation: { responses?: Record<string, unknown> }): boolean {
  return Boolean(operation.responses && '402' in operation.responses);
}

/** An operation is public only when it declares an empty security requirement (`security: []`). */
function requiresKey(security: unknown): boolean {
  return !Array.isArray(security) || security.some((req) => Object.keys(req as object).length > 0);
}
