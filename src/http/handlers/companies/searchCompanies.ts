import { searchCompanies as search } from '../../../domain/companies/search';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const searchCompanies =
  (deps: HandlerDeps): OperationHandler<'searchCompanies'> =>
  async (req, ctx) => {
    const body: ResponseBody<'searchCompanies', 200> = await lakeRead(deps, ctx, (db) => search(db, req.body));
    return { body };
  };
