import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { checkCompany as checkCompanyRecord } from '../../../domain/lake/lookups';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const checkCompany =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'checkCompany', 200> = {
      data: await checkCompanyRecord(deps.knex, companyKeyFromQuery(req.query)),
    };
    return { body };
  };
