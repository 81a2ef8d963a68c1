import { getCompany as lookup } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/** Answers the stored CompanyResult unparsed; tests validate it against the contract like any response. */
export const getCompany =
  (deps: HandlerDeps): OperationHandler<'getCompany'> =>
  async (req, ctx) => ({ body: { data: new RawJson(await lakeRead(deps, ctx, (db) => lookup(db, companyKeyFromQuery(req.query)))) } });
