import { headcountBySeniority } from '../../../domain/relationships/companies';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getHeadcountBySeniority =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'getHeadcountBySeniority', 200> = {
      data: await headcountBySeniority(deps.knex, String(req.query.company_id)),
    };
    return { body };
  };
