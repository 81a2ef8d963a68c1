import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { checkPerson as check } from '../../../domain/people/lookup';
import { conditionalAnswer } from '../../conditional';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

/** The check's `data`, serialized once: the ETag is the digest of exactly these bytes. */
export const checkPerson =
  (deps: HandlerDeps): OperationHandler<'checkPerson'> =>
  async (req, ctx) => {
    const data: ResponseBody<'checkPerson', 200>['data'] = await lakeRead(deps, ctx, (db) => check(db, personKeyFromQuery(req.query)));
    return conditionalAnswer(ctx, JSON.stringify(data));
  };
