import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { getPersonJson } from '../../../domain/lake/lookups';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';

/** Answers the stored PersonResult unparsed; tests validate it against the contract like any response. */
export const getPerson =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => ({ body: { data: new RawJson(await getPersonJson(deps.knex, personKeyFromQuery(req.query))) } });
