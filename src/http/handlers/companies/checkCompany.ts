import { checkCompany as check } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const checkCompany =
  (deps: HandlerDeps): OperationHandler<'checkCompany'> =>
  async (req) => {
    const body: ResponseBody<'checkCompany', 200> = { data: await check(deps.knex, companyKeyFromQuery(req.query)) };
    return { body };
  };
