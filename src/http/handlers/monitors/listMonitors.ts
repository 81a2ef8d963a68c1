import { listMonitors as list } from '../../../domain/monitors/monitors';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listMonitors =
  (deps: HandlerDeps): OperationHandler<'listMonitors'> =>
  async (_req, ctx) => {
    const body: ResponseBody<'listMonitors', 200> = { monitors: await list(deps.knex, ctx.state.principal!.workspaceId) };
    return { body };
  };
