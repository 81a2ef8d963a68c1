import { setMemberAllowance as set } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const setMemberAllowance =
  (deps: HandlerDeps): OperationHandler<'setMemberAllowance'> =>
  async (req, ctx) => {
    const body: ResponseBody<'setMemberAllowance', 200> = {
      member: await set(deps.knex, ctx.state.principal!, req.params.member_id, req.body.allowance ?? null),
    };
    return { body };
  };
