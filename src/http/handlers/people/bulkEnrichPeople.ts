import type { operations } from '../../../../generated/types';
import { enrichPeople } from '../../../domain/lake/bulk';
import { bulkResponseBody } from '../../bulkResponse';
import type { HandlerDeps, OperationHandler } from '../types';

type Body = operations['bulkEnrichPeople']['requestBody']['content']['application/json'];

/** The body's shape (1-100 items, known fields only) was checked against the contract before this runs. */
export const bulkEnrichPeople =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => ({ body: bulkResponseBody(await enrichPeople(deps.knex, (req.body as Body).profiles)) });
