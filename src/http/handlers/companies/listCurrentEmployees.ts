import { listCurrentEmployees as list } from '../../../domain/relationships/companies';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listCurrentEmployees =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listCurrentEmployees', 200> = await list(deps.knex, String(req.query.company_id), req.query);
    return { body };
  };
