import { buildInfo } from '../../../observability/version';
import type { OperationHandler, ResponseBody } from '../types';

/**
 * Liveness only: answers without touching the database or Redis, so a dependency's outage never
 * makes an orchestrator restart healthy instances (readiness is getReadiness).
 */
export const getHealth = (): OperationHandler<'getHealth'> => () => {
  const { version, commit } = buildInfo();
  const body: ResponseBody<'getHealth', 200> = { ok: true, version, commit };
  return { body };
};
