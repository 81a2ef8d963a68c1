import { accountInfo } from '../../../domain/account/accountInfo';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getAccount =
  (deps: HandlerDeps): OperationHandler =>
  async (_req, ctx) => {
    const data = await accountInfo(deps.knex, ctx.state.principal!, deps.config.rateLimitWindowSeconds);
    const body: ResponseBody<'getAccount', 200> = { data };
    return { body };
  };
