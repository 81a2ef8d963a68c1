import { listJobChanges as list, type JobChangesRequest } from '../../../domain/relationships/people';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listJobChanges =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listJobChanges', 200> = await list(deps.knex, req.query as JobChangesRequest);
    return { body };
  };
