import { listAlumni as list } from '../../../domain/institutions/alumni';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listAlumni =
  (deps: HandlerDeps): OperationHandler<'listAlumni'> =>
  async (req) => {
    const body: ResponseBody<'listAlumni', 200> = await list(deps.knex, req.query.school, req.query);
    return { body };
  };
