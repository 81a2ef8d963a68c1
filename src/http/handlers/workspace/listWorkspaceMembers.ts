import { listWorkspaceMembers as list } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listWorkspaceMembers =
  (deps: HandlerDeps): OperationHandler<'listWorkspaceMembers'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listWorkspaceMembers', 200> = await list(deps.knex, ctx.state.principal!, req.query);
    return { body };
  };
