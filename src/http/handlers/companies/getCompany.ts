import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { getCompanyJson } from '../../../domain/lake/lookups';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';

/** Answers the stored CompanyResult unparsed; tests validate it against the contract like any response. */
export const getCompany =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => ({ body: { data: new RawJson(await getCompanyJson(deps.knex, companyKeyFromQuery(req.query))) } });
