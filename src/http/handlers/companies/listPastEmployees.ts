import { listPastEmployees as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listPastEmployees =
  (deps: HandlerDeps): OperationHandler<'listPastEmployees'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listPastEmployees', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query.company_id, req.query));
    return { body };
  };
