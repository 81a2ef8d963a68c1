import { listJobChanges as list } from '../../../domain/people/relationships';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listJobChanges =
  (deps: HandlerDeps): OperationHandler<'listJobChanges'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listJobChanges', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query));
    return { body };
  };
