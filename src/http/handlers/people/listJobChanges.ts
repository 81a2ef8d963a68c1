import { listJobChanges as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listJobChanges =
  (deps: HandlerDeps): OperationHandler<'listJobChanges'> =>
  async (req) => {
    const body: ResponseBody<'listJobChanges', 200> = await list(deps.knex, req.query);
    return { body };
  };
