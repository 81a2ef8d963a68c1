import { searchCompanies as search, type SearchCompaniesRequest } from '../../../domain/search/companies';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const searchCompanies =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'searchCompanies', 200> = await search(deps.knex, req.body as SearchCompaniesRequest);
    return { body };
  };
