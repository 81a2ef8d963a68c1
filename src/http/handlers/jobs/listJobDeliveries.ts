import { listJobDeliveries as list } from '../../../domain/jobs/jobs';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listJobDeliveries =
  (deps: HandlerDeps): OperationHandler<'listJobDeliveries'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listJobDeliveries', 200> = { results: await list(deps.knex, ctx.state.principal!.workspaceId, req.params.id) };
    return { body };
  };
