import { createWorkspaceKey as create } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const createWorkspaceKey =
  (deps: HandlerDeps): OperationHandler<'createWorkspaceKey'> =>
  async (req, ctx) => {
    const body: ResponseBody<'createWorkspaceKey', 201> = await create(deps.knex, ctx.state.principal!, req.body);
    return { status: 201, body };
  };
