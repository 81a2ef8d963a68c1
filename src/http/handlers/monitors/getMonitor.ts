import { getMonitor as get } from '../../../domain/monitors/monitors';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getMonitor =
  (deps: HandlerDeps): OperationHandler<'getMonitor'> =>
  async (req, ctx) => {
    const body: ResponseBody<'getMonitor', 200> = {
      monitor: await get(deps.knex, ctx.state.principal!.workspaceId, req.params.id),
    };
    return { body };
  };
