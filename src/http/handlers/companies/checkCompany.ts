import { checkCompany as check } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { conditionalAnswer } from '../../conditional';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

/** The check's `data`, serialized once: the ETag is the digest of exactly these bytes. */
export const checkCompany =
  (deps: HandlerDeps): OperationHandler<'checkCompany'> =>
  async (req, ctx) => {
    const data: ResponseBody<'checkCompany', 200>['data'] = await lakeRead(deps, ctx, (db) => check(db, companyKeyFromQuery(req.query)));
    return conditionalAnswer(ctx, JSON.stringify(data));
  };
