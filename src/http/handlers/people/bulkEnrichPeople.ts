import { bulkEnrichPeople as enrich } from '../../../domain/people/bulk';
import { bulkResponseBody } from '../../bulkResponse';
import type { HandlerDeps, OperationHandler } from '../types';

/** The body's shape (1-100 items, known fields only) was checked against the contract before this runs. */
export const bulkEnrichPeople =
  (deps: HandlerDeps): OperationHandler<'bulkEnrichPeople'> =>
  async (req) => ({ body: bulkResponseBody(await enrich(deps.knex, req.body.profiles)) });
