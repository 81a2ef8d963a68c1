import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { listColleagues as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listColleagues =
  (deps: HandlerDeps): OperationHandler<'listColleagues'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listColleagues', 200> = await lakeRead(deps, ctx, (db) => list(db, personKeyFromQuery(req.query), req.query));
    return { body };
  };
