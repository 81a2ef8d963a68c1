import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listSimilarPeople as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listSimilarPeople =
  (deps: HandlerDeps): OperationHandler<'listSimilarPeople'> =>
  async (req) => {
    const body: ResponseBody<'listSimilarPeople', 200> = await list(deps.knex, personKeyFromQuery(req.query), req.query);
    return { body };
  };
