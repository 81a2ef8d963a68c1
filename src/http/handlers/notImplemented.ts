import { AppError } from '../../domain/errors';
import type { OperationHandler } from './types';

/** Operations the contract describes but this release does not serve yet answer 501 in the envelope. */
export const notImplemented =
  (operationId: string): OperationHandler =>
  () => {
    throw new AppError('NOT_IMPLEMENTED', `${operationId} is described by the contract but not served by this release yet`);
  };
