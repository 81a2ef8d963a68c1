import { rotateMonitorSecret as rotate } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const rotateMonitorSecret =
  (deps: HandlerDeps): OperationHandler<'rotateMonitorSecret'> =>
  async (req, ctx) => {
    const body: ResponseBody<'rotateMonitorSecret', 200> = await rotate(deps.monitors, ctx.state.principal!, req.params.id);
    return { body };
  };
