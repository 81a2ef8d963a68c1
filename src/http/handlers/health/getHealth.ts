import type { OperationHandler, ResponseBody } from '../types';

/**
 * Liveness only: answers without touching the database or Redis, so a dependency's outage never
 * makes an orchestrator restart healthy instances (readiness is getReadiness).
 */
export const getHealth = (): OperationHandler<'getHealth'> => () => {
  const body: ResponseBody<'getHealth', 200> = { ok: true };
  return { body };
};
