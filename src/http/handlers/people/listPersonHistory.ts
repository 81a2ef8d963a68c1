import { listPersonHistory as list } from '../../../domain/history/history';
import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listPersonHistory =
  (deps: HandlerDeps): OperationHandler<'listPersonHistory'> =>
  async (req) => {
    const body: ResponseBody<'listPersonHistory', 200> = await list(deps.knex, personKeyFromQuery(req.query), req.query);
    return { body };
  };
