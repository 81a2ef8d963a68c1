import { checkCompany as check } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const checkCompany =
  (deps: HandlerDeps): OperationHandler<'checkCompany'> =>
  async (req, ctx) => {
    const body: ResponseBody<'checkCompany', 200> = { data: await lakeRead(deps, ctx, (db) => check(db, companyKeyFromQuery(req.query))) };
    return { body };
  };
