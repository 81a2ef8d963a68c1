import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listSimilarPeople as list } from '../../../domain/relationships/people';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listSimilarPeople =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listSimilarPeople', 200> = await list(deps.knex, personKeyFromQuery(req.query), req.query);
    return { body };
  };
