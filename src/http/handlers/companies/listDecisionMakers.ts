import { listDecisionMakers as list } from '../../../domain/companies/staff';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listDecisionMakers =
  (deps: HandlerDeps): OperationHandler<'listDecisionMakers'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listDecisionMakers', 200> = await lakeRead(deps, ctx, (db) => list(db, req.query.company_id, req.query));
    return { body };
  };
