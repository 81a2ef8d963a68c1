import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { getCompanyRecord } from '../../../domain/lake/lookups';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getCompany =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'getCompany', 200> = {
      data: await getCompanyRecord(deps.knex, companyKeyFromQuery(req.query)),
    };
    return { body };
  };
