import { sessionView, signIn } from '../../../domain/workspaces/sessions';
import { checkOrigin, setSessionCookie } from '../../session';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const createSession =
  (deps: HandlerDeps): OperationHandler<'createSession'> =>
  async (req, ctx) => {
    // Public operation (no key yet): refuse a sign-in posted from another site (login CSRF).
    checkOrigin(ctx, false, deps.config.publicOrigin);
    // A refused key or link counts against the address's failed-authentication budget, as a
    // refused Authorization header does (sign-in must not be a way around it).
    const { token, context } = await deps.limits.guardKeyCheck(ctx, () => signIn(deps.knex, req.body));
    ctx.state.principal = context.principal;
    setSessionCookie(ctx, token, deps.config.trustProxyHops > 0);
    const body: ResponseBody<'createSession', 201> = { session: sessionView(context) };
    return { status: 201, body };
  };
