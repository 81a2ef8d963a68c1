import { listWorkspaceKeys as list } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listWorkspaceKeys =
  (deps: HandlerDeps): OperationHandler<'listWorkspaceKeys'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listWorkspaceKeys', 200> = await list(deps.knex, ctx.state.principal!, req.query);
    return { body };
  };
