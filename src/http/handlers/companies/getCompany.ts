import { getCompany as lookup } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { conditionalAnswer } from '../../conditional';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/**
 * Answers the stored CompanyResult unparsed (tests validate it against the contract like any
 * response), with its ETag, or 304 when If-None-Match holds it.
 */
export const getCompany =
  (deps: HandlerDeps): OperationHandler<'getCompany'> =>
  async (req, ctx) => conditionalAnswer(ctx, await lakeRead(deps, ctx, (db) => lookup(db, companyKeyFromQuery(req.query))));
