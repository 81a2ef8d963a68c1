import { deleteMonitor as remove } from '../../../domain/monitors/monitors';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const deleteMonitor =
  (deps: HandlerDeps): OperationHandler<'deleteMonitor'> =>
  async (req, ctx) => {
    await remove(deps.knex, ctx.state.principal!.workspaceId, req.query.id);
    const body: ResponseBody<'deleteMonitor', 200> = { ok: true };
    return { body };
  };
