import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { checkPerson as check } from '../../../domain/people/lookup';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const checkPerson =
  (deps: HandlerDeps): OperationHandler<'checkPerson'> =>
  async (req, ctx) => {
    const body: ResponseBody<'checkPerson', 200> = { data: await lakeRead(deps, ctx, (db) => check(db, personKeyFromQuery(req.query))) };
    return { body };
  };
