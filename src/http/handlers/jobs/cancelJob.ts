import { cancelJob as cancel } from '../../../domain/jobs/jobs';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const cancelJob =
  (deps: HandlerDeps): OperationHandler<'cancelJob'> =>
  async (req, ctx) => {
    const body: ResponseBody<'cancelJob', 200> = { job: await cancel(deps.knex, ctx.state.principal!.workspaceId, req.params.id) };
    return { body };
  };
