/**
 * 401 for a missing/invalid key, 402 for a workspace without an active license (on the operations
 * whose contract documents 402). Neither consumes rate limit; the 402 answer still shows the
 * workspace's current window. The failed-authentication budget that throttles key guessing is the
 * limits stage's (limits.ts `guardKeyCheck`): a key verified recently (cached) never touches it.
 */
import type { Authenticator } from '../../domain/auth/authenticator';
import { licenseState, type Principal } from '../../domain/auth/principal';
import { AppError } from '../../domain/errors';
import type { Limits } from './limits';
import type { AppContext, Step } from '../state';

interface AuthenticateDeps {
  authenticator: Authenticator;
  limits: Limits;
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
    // The key this connection's last request was verified with, sent again: no digest, no query.
    const connection = ctx.req.socket;
    const known = header && deps.authenticator.cachedOnConnection(connection, header);
    if (known) return admit(ctx, known, rules, deps);
    // The key's digest, computed once: for the cache here and, on a miss, for the lookup.
    const presented = deps.authenticator.presented(header);
    // A key verified recently: no query, no promise.
    const cached = presented && deps.authenticator.cached(presented);
    if (cached) {
      deps.authenticator.rememberOnConnection(connection, header!, presented, cached);
      return admit(ctx, cached, rules, deps);
    }
    return verify(ctx, presented, deps).then((p) => {
      if (header && presented) deps.authenticator.rememberOnConnection(connection, header, presented, p);
      return admit(ctx, p, rules, deps);
    });
  };
}

/** 402 when the license gates the operation and is not active (showing the current window); otherwise the principal is the caller. */
function admit(ctx: AppContext, principal: Principal, rules: Rules, deps: AuthenticateDeps): void | Promise<void> {
  const license = licenseState(principal);
  if (license !== 'active' && rules.checksLicense) {
    return deps.limits.showWindows(ctx, principal).then(() => {
      throw new AppError(
        'LICENSE_INACTIVE',
        license === 'expired' ? 'The workspace license has expired' : 'The workspace has no active license',
      );
    });
  }
  ctx.state.principal = principal;
}

function verify(ctx: AppContext, key: Parameters<Authenticator['authenticate']>[0], deps: AuthenticateDeps): Promise<Principal> {
  return deps.limits.guardKeyCheck(ctx, () => deps.authenticator.authenticate(key));
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
