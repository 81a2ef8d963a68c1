import { listCompanyHistory as list } from '../../../domain/history/history';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const listCompanyHistory =
  (deps: HandlerDeps): OperationHandler<'listCompanyHistory'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listCompanyHistory', 200> = await lakeRead(deps, ctx, (db) => list(db, companyKeyFromQuery(req.query), req.query));
    return { body };
  };
