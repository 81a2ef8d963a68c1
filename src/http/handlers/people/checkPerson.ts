import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { checkPerson as checkPersonRecord } from '../../../domain/lake/lookups';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const checkPerson =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'checkPerson', 200> = {
      data: await checkPersonRecord(deps.knex, personKeyFromQuery(req.query)),
    };
    return { body };
  };
