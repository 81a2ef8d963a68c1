import { getAccount as accountOf } from '../../../domain/account/account';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getAccount =
  (deps: HandlerDeps): OperationHandler<'getAccount'> =>
  async (_req, ctx) => {
    const data = await accountOf(deps.knex, ctx.state.principal!, deps.config.rateLimitWindowSeconds);
    const body: ResponseBody<'getAccount', 200> = { data };
    return { body };
  };
