import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { usageSince } from '../../db/repositories/realtimeUsage';
import { licenseState, type Principal } from '../auth/principal';

/**
 * Spec: each realtime call costs 0.001 USD on top of the license. Written once: typed by the
 * contract's `RealtimeCost` (a `const`), so the two cannot drift apart without a type error.
 */
export const REALTIME_UNIT_PRICE_USD: components['schemas']['RealtimeCost'] = 0.001;
/**
 * The same price as exact decimal text, as the usage ledger stores it: derived, at the ledger's
 * resolution (sums are taken in micro-dollars, realtimeUsage.ts).
 */
export const REALTIME_UNIT_PRICE_DECIMAL = REALTIME_UNIT_PRICE_USD.toFixed(6);

/** Usage periods are calendar months in UTC. */
function currentPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/** Answers for an inactive or expired license too: the one operation that shows why the others say 402. */
export async function getAccount(db: Knex, principal: Principal, windowSeconds: number, now = new Date()) {
  const period = currentPeriod(now);
  const usage = await usageSince(db, principal.workspaceId, period.start, period.end);
  return {
    workspace: { id: principal.workspaceId, name: principal.workspaceName },
    account: { id: principal.accountId, name: principal.accountName, role: principal.role },
    license: {
      status: licenseState(principal, now),
      expires_at: principal.licenseExpiresAt ? principal.licenseExpiresAt.toISOString() : null,
    },
    rate_limits: {
      workspace: { limit: principal.workspaceLimit, window_seconds: windowSeconds },
      member:
        principal.memberAllowance === null ? null : { limit: principal.memberAllowance, window_seconds: windowSeconds },
    },
    usage: {
      period_start: period.start.toISOString(),
      period_end: period.end.toISOString(),
      realtime_calls: usage.calls,
      // Summed in integer micro-dollars by the database; one division for the JSON number.
      realtime_cost_usd: usage.cost_micro_usd / 1e6,
      unit_price_usd: REALTIME_UNIT_PRICE_USD,
    },
  };
}
