import { bulkEnrichPeople as enrich } from '../../../domain/people/bulk';
import { bulkResponseBody } from '../../bulkResponse';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/** The body's shape (1-100 items, known fields only) was checked against the contract before this runs. */
export const bulkEnrichPeople =
  (deps: HandlerDeps): OperationHandler<'bulkEnrichPeople'> =>
  async (req, ctx) => ({ body: bulkResponseBody(await lakeRead(deps, ctx, (db) => enrich(db, req.body.profiles))) });
