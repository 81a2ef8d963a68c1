import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listSimilarPeople as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listSimilarPeople =
  (deps: HandlerDeps): OperationHandler<'listSimilarPeople'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listSimilarPeople', 200> = await lakeRead(deps, ctx, (db) => list(db, personKeyFromQuery(req.query), req.query));
    return { body };
  };
