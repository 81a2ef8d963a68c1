import { listDecisionMakers as list } from '../../../domain/relationships/companies';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listDecisionMakers =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listDecisionMakers', 200> = await list(deps.knex, String(req.query.company_id), req.query);
    return { body };
  };
