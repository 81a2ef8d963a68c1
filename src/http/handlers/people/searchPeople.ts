import { searchPeople as search } from '../../../domain/people/search';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';
import { lakeRead } from '../lakeRead';

export const searchPeople =
  (deps: HandlerDeps): OperationHandler<'searchPeople'> =>
  async (req, ctx) => {
    const body: ResponseBody<'searchPeople', 200> = await lakeRead(deps, ctx, (db) => search(db, req.body));
    return { body };
  };
