import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { checkPerson as check } from '../../../domain/people/lookup';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const checkPerson =
  (deps: HandlerDeps): OperationHandler<'checkPerson'> =>
  async (req) => {
    const body: ResponseBody<'checkPerson', 200> = { data: await check(deps.knex, personKeyFromQuery(req.query)) };
    return { body };
  };
