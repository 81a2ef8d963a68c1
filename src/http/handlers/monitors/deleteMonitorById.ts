import { deleteMonitor as remove } from '../../../domain/monitors/monitors';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const deleteMonitorById =
  (deps: HandlerDeps): OperationHandler<'deleteMonitorById'> =>
  async (req, ctx) => {
    await remove(deps.knex, ctx.state.principal!.workspaceId, req.params.id);
    const body: ResponseBody<'deleteMonitorById', 200> = { ok: true };
    return { body };
  };
