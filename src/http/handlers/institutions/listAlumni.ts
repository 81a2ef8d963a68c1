import { listAlumni as list } from '../../../domain/relationships/people';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listAlumni =
  (deps: HandlerDeps): OperationHandler =>
  async (req) => {
    const body: ResponseBody<'listAlumni', 200> = await list(deps.knex, String(req.query.school), req.query);
    return { body };
  };
