import { checkCompany as check } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { conditionalAnswer } from '../../conditional';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

/** The check's `data`, serialized once: the ETag is the digest of exactly these bytes. */
export const checkCompany =
  (deps: HandlerDeps): OperationHandler<'checkCompany'> =>
  async (req, ctx) => {
    const data: ResponseBody<'checkCompany', 200>['data'] = await check(deps.knex, companyKeyFromQuery(req.query));
    return conditionalAnswer(ctx, JSON.stringify(data));
  };
