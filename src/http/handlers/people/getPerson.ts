import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { getPersonRecord } from '../../../domain/lake/lookups';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getPerson =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'getPerson', 200> = { data: await getPersonRecord(deps.knex, personKeyFromQuery(req.query)) };
    return { body };
  };
