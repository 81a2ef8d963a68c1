import { listCurrentEmployees as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listCurrentEmployees =
  (deps: HandlerDeps): OperationHandler<'listCurrentEmployees'> =>
  async (req) => {
    const body: ResponseBody<'listCurrentEmployees', 200> = await list(deps.knex, req.query.company_id, req.query);
    return { body };
  };
