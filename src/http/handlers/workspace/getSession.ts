import { apiKeyInvalid } from '../../../domain/errors';
import { sessionView } from '../../../domain/workspaces/sessions';
import type { OperationHandler, ResponseBody } from '../types';

export const getSession = (): OperationHandler<'getSession'> => async (_req, ctx) => {
  // Only the cookie authenticates this one: an API key has no session to show.
  if (!ctx.state.session) throw apiKeyInvalid();
  const body: ResponseBody<'getSession', 200> = { session: sessionView(ctx.state.session) };
  return { body };
};
