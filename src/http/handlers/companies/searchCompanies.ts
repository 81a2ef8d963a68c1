import { searchCompanies as search } from '../../../domain/companies/search';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const searchCompanies =
  (deps: HandlerDeps): OperationHandler<'searchCompanies'> =>
  async (req) => {
    const body: ResponseBody<'searchCompanies', 200> = await search(deps.knex, req.body);
    return { body };
  };
