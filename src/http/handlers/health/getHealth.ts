import type { OperationHandler, ResponseBody } from '../types';

/** Liveness only: answers without touching the database so a slow query never fails the probe. */
export const getHealth = (): OperationHandler<'getHealth'> => () => {
  const body: ResponseBody<'getHealth', 200> = { ok: true };
  return { body };
};
