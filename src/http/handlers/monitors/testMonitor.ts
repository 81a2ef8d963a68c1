import { enqueueTest } from '../../../domain/webhooks/deliveries';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const testMonitor =
  (deps: HandlerDeps): OperationHandler<'testMonitor'> =>
  async (req, ctx) => {
    const body: ResponseBody<'testMonitor', 202> = {
      delivery: await enqueueTest(deps.knex, ctx.state.principal!.workspaceId, req.params.id),
    };
    return { status: 202, body };
  };
