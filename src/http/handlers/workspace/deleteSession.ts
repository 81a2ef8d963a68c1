import { apiKeyInvalid } from '../../../domain/errors';
import { signOut } from '../../../domain/workspaces/sessions';
import { clearSessionCookie } from '../../session';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const deleteSession =
  (deps: HandlerDeps): OperationHandler<'deleteSession'> =>
  async (_req, ctx) => {
    if (!ctx.state.session) throw apiKeyInvalid();
    await signOut(deps.knex, ctx.state.session.session.id);
    clearSessionCookie(ctx, deps.config.trustProxyHops > 0);
    const body: ResponseBody<'deleteSession', 200> = { ok: true };
    return { body };
  };
