import { getHeadcountBySeniority as headcount } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const getHeadcountBySeniority =
  (deps: HandlerDeps): OperationHandler<'getHeadcountBySeniority'> =>
  async (req, ctx) => {
    const body: ResponseBody<'getHeadcountBySeniority', 200> = { data: await lakeRead(deps, ctx, (db) => headcount(db, req.query.company_id)) };
    return { body };
  };
