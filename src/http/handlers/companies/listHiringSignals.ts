import { listHiringSignals as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listHiringSignals =
  (deps: HandlerDeps): OperationHandler<'listHiringSignals'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listHiringSignals', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query.company_id, req.query));
    return { body };
  };
