import { revokeWorkspaceKey as revoke } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const revokeWorkspaceKey =
  (deps: HandlerDeps): OperationHandler<'revokeWorkspaceKey'> =>
  async (req, ctx) => {
    await revoke(deps.knex, ctx.state.principal!, req.params.key_id);
    const body: ResponseBody<'revokeWorkspaceKey', 200> = { ok: true };
    return { body };
  };
