import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listColleagues as list } from '../../../domain/relationships/people';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listColleagues =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listColleagues', 200> = await list(deps.knex, personKeyFromQuery(req.query), req.query);
    return { body };
  };
