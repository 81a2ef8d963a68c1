import { getJob as get } from '../../../domain/jobs/jobs';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getJob =
  (deps: HandlerDeps): OperationHandler<'getJob'> =>
  async (req, ctx) => {
    const body: ResponseBody<'getJob', 200> = { job: await get(deps.knex, ctx.state.principal!.workspaceId, req.params.id) };
    return { body };
  };
