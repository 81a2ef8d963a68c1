import { bulkGetPeople as getByIds } from '../../../domain/people/bulk';
import { bulkResponseBody } from '../../bulkResponse';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/** The body's shape (1-500 strings, no other field) was checked against the contract before this runs. */
export const bulkGetPeople =
  (deps: HandlerDeps): OperationHandler<'bulkGetPeople'> =>
  async (req, ctx) => ({ body: bulkResponseBody(await lakeRead(deps, ctx, (db) => getByIds(db, req.body.ids))) });
