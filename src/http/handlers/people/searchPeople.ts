import { searchPeople as search, type SearchPeopleRequest } from '../../../domain/search/people';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const searchPeople =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'searchPeople', 200> = await search(deps.knex, req.body as SearchPeopleRequest);
    return { body };
  };
