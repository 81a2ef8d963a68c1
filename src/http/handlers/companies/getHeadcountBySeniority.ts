import { getHeadcountBySeniority as headcount } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getHeadcountBySeniority =
  (deps: HandlerDeps): OperationHandler<'getHeadcountBySeniority'> =>
  async (req) => {
    const body: ResponseBody<'getHeadcountBySeniority', 200> = { data: await headcount(deps.knex, req.query.company_id) };
    return { body };
  };
