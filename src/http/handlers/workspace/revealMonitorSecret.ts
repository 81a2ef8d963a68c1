import { revealMonitorSecret as reveal } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const revealMonitorSecret =
  (deps: HandlerDeps): OperationHandler<'revealMonitorSecret'> =>
  async (req, ctx) => {
    const body: ResponseBody<'revealMonitorSecret', 200> = await reveal(deps.monitors, ctx.state.principal!, req.params.id);
    return { body };
  };
