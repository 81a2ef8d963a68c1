import { deleteJob as remove } from '../../../domain/jobs/jobs';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const deleteJob =
  (deps: HandlerDeps): OperationHandler<'deleteJob'> =>
  async (req, ctx) => {
    await remove(deps.knex, ctx.state.principal!.workspaceId, req.params.id);
    const body: ResponseBody<'deleteJob', 200> = { ok: true };
    return { body };
  };
