import { listCompanyHistory as list } from '../../../domain/history/history';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listCompanyHistory =
  (deps: HandlerDeps): OperationHandler<'listCompanyHistory'> =>
  async (req) => {
    const body: ResponseBody<'listCompanyHistory', 200> = await list(deps.knex, companyKeyFromQuery(req.query), req.query);
    return { body };
  };
