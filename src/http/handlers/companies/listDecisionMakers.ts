import { listDecisionMakers as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listDecisionMakers =
  (deps: HandlerDeps): OperationHandler<'listDecisionMakers'> =>
  async (req) => {
    const body: ResponseBody<'listDecisionMakers', 200> = await list(deps.knex, req.query.company_id, req.query);
    return { body };
  };
