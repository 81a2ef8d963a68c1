import { createMonitor as create } from '../../../domain/monitors/monitors';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const createMonitor =
  (deps: HandlerDeps): OperationHandler<'createMonitor'> =>
  async (req, ctx) => {
    const body: ResponseBody<'createMonitor', 201> = {
      monitor: await create(deps.monitors, ctx.state.principal!.workspaceId, req.body),
    };
    return { status: 201, body };
  };
