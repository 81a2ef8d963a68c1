/**
 * Readiness (GET /health/ready): the instance can serve requests when PostgreSQL answers within the
 * readiness timeout. Redis is reported but does not decide: without it each instance limits in its
 * own memory (domain/ratelimit), so taking instances out of rotation for it would turn a degraded
 * service into an outage. Liveness (GET /health) checks nothing.
 */
import type { Knex } from 'knex';
import { ping } from '../../db/repositories/database';
import type { RateLimitStoreState } from '../ratelimit/rateLimits';

export interface Readiness {
  ready: boolean;
  /** Why not, in words, when not ready. */
  reason?: string;
  checks: { database: 'up' | 'down'; redis: RateLimitStoreState };
}

export async function checkReadiness(db: Knex, redis: RateLimitStoreState, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([ping(db).then(() => 'up' as const, () => 'error' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'up') return { ready: true, checks: { database: 'up', redis } };
  const reason =
    outcome === 'timeout' ? `the database did not answer within ${timeoutMs} ms` : 'the database refused the connection or the query';
  return { ready: false, reason, checks: { database: 'down', redis } };
}
