import { listHiringSignals as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listHiringSignals =
  (deps: HandlerDeps): OperationHandler<'listHiringSignals'> =>
  async (req) => {
    const body: ResponseBody<'listHiringSignals', 200> = await list(deps.knex, req.query.company_id, req.query);
    return { body };
  };
