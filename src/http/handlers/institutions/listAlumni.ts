import { listAlumni as list } from '../../../domain/institutions/alumni';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listAlumni =
  (deps: HandlerDeps): OperationHandler<'listAlumni'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listAlumni', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query.school, req.query));
    return { body };
  };
