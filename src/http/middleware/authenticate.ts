/**
 * 401 for a missing/invalid key, 402 for a workspace without an active license (on the operations
 * whose contract documents 402). Neither consumes rate limit; the 402 answer still shows the
 * workspace's current window.
 *
 * Key guessing is throttled per client address: every failed authentication (401) counts against
 * the address's budget (AUTH_FAILURE_LIMIT per sliding window). Once it is used up, requests whose
 * key the server has not verified recently are refused with 429 and Retry-After before any lookup;
 * keys already in use (cached) keep working from the same address.
 */
import type { Authenticator } from '../../domain/auth/authenticator';
import { licenseState, type Principal } from '../../domain/auth/principal';
import { AppError } from '../../domain/errors';
import type { RateLimits } from '../../domain/ratelimit/rateLimits';
import { clientAddress } from '../clientAddress';
import type { AppContext, Step } from '../state';

interface AuthenticateDeps {
  authenticator: Authenticator;
  rateLimits: RateLimits;
  authFailureLimit: number;
  /** The dashboard's session cookie, tried when no Authorization header is sent (http/session.ts). */
  session?: (ctx: AppContext) => Promise<Principal | undefined>;
}

type Rules = { requiresKey: boolean; checksLicense: boolean };

export function authenticate(deps: AuthenticateDeps): Step {
  return (ctx) => {
    const operation = ctx.state.operation;
    if (!operation) return;
    const rules = rulesOf(operation);
    if (!rules.requiresKey) return;
    const header = ctx.req.headers.authorization || undefined;
    if (!header && deps.session) {
      return deps.session(ctx).then((fromSession) =>
        fromSession ? admit(ctx, fromSession, rules, deps) : verify(ctx, header, deps).then((p) => admit(ctx, p, rules, deps)),
      );
    }
    // A key verified recently: no query, no promise.
    const cached = deps.authenticator.cached(header);
    if (cached) return admit(ctx, cached, rules, deps);
    return verify(ctx, header, deps).then((p) => admit(ctx, p, rules, deps));
  };
}

/** 402 when the license gates the operation and is not active (showing the current window); otherwise the principal is the caller. */
function admit(ctx: AppContext, principal: Principal, rules: Rules, deps: AuthenticateDeps): void | Promise<void> {
  const license = licenseState(principal);
  if (license !== 'active' && rules.checksLicense) {
    return Promise.resolve(deps.rateLimits.peek(principal)).then((quotas) => {
      ctx.state.quotas = quotas;
      throw new AppError(
        'LICENSE_INACTIVE',
        license === 'expired' ? 'The workspace license has expired' : 'The workspace has no active license',
      );
    });
  }
  ctx.state.principal = principal;
}

async function verify(ctx: AppContext, header: string | undefined, deps: AuthenticateDeps): Promise<Principal> {
  const address = clientAddress(ctx);
  const budget = await deps.rateLimits.authFailureBudget(address, deps.authFailureLimit);
  if (!budget.allowed) {
    ctx.state.quotas = budget.quotas;
    throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many failed authentications from this address: retry later', {
      'Retry-After': String(budget.retryAfterSeconds),
    });
  }
  try {
    return await deps.authenticator.authenticate(header);
  } catch (err) {
    // Only a refused key counts; a check that could not run (database down) does not.
    if (err instanceof AppError && err.code === 'API_KEY_INVALID') await deps.rateLimits.recordAuthFailure(address);
    throw err;
  }
}

/** What the contract says of an operation's keys and license, read once per operation (the document never changes). */
const rulesByOperation = new WeakMap<object, Rules>();
function rulesOf(operation: { security?: unknown; responses?: Record<string, unknown> }) {
  let rules = rulesByOperation.get(operation);
  if (!rules) {
    rules = { requiresKey: requiresKey(operation.security), checksLicense: checksLicense(operation) };
    rulesByOperation.set(operation, rules);
  }
  return rules;
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
