import { getCompany as lookup } from '../../../domain/companies/lookup';
import { companyKeyFromQuery } from '../../../domain/lake/identifiers';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';

/** Answers the stored CompanyResult unparsed; tests validate it against the contract like any response. */
export const getCompany =
  (deps: HandlerDeps): OperationHandler<'getCompany'> =>
  async (req) => ({ body: { data: new RawJson(await lookup(deps.knex, companyKeyFromQuery(req.query))) } });
