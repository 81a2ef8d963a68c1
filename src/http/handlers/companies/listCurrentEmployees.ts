import { listCurrentEmployees as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listCurrentEmployees =
  (deps: HandlerDeps): OperationHandler<'listCurrentEmployees'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listCurrentEmployees', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query.company_id, req.query));
    return { body };
  };
