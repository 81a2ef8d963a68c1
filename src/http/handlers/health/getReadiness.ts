import { AppError } from '../../../domain/errors';
import { checkReadiness } from '../../../domain/health/readiness';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../middleware/edge';
import { buildInfo } from '../../../observability/version';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

/** Readiness: 200 when the database answers in time, 503 SERVICE_UNAVAILABLE otherwise. */
export const getReadiness =
  (deps: HandlerDeps): OperationHandler<'getReadiness'> =>
  async () => {
    const redis = deps.rateLimitStore?.() ?? 'not_configured';
    const readiness = await checkReadiness(deps.knex, redis, deps.config.readinessTimeoutMs);
    if (!readiness.ready) {
      throw new AppError('SERVICE_UNAVAILABLE', `Not ready: ${readiness.reason}`, {
        'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
      });
    }
    const replicas = deps.reads.states();
    // Shown only with read replicas; they never decide readiness (lake reads fall back to the primary).
    const { version, commit } = buildInfo();
    const body: ResponseBody<'getReadiness', 200> = { ok: true, version, commit, checks: { database: 'up', redis, ...(replicas.length ? { replicas } : {}) } };
    return { body };
  };
