import { searchPeople as search } from '../../../domain/people/search';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const searchPeople =
  (deps: HandlerDeps): OperationHandler<'searchPeople'> =>
  async (req) => {
    const body: ResponseBody<'searchPeople', 200> = await search(deps.knex, req.body);
    return { body };
  };
