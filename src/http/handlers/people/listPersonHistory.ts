import { listPersonHistory as list } from '../../../domain/history/history';
import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listPersonHistory =
  (deps: HandlerDeps): OperationHandler<'listPersonHistory'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listPersonHistory', 200> = await lakeRead(deps, ctx, (db) => list(db, personKeyFromQuery(req.query), req.query));
    return { body };
  };
