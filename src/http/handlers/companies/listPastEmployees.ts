import { listPastEmployees as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listPastEmployees =
  (deps: HandlerDeps): OperationHandler<'listPastEmployees'> =>
  async (req) => {
    const body: ResponseBody<'listPastEmployees', 200> = await list(deps.knex, req.query.company_id, req.query);
    return { body };
  };
