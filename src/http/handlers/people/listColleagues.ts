import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listColleagues as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listColleagues =
  (deps: HandlerDeps): OperationHandler<'listColleagues'> =>
  async (req) => {
    const body: ResponseBody<'listColleagues', 200> = await list(deps.knex, personKeyFromQuery(req.query), req.query);
    return { body };
  };
