import { redeliver } from '../../../domain/webhooks/deliveries';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const redeliverMonitorDelivery =
  (deps: HandlerDeps): OperationHandler<'redeliverMonitorDelivery'> =>
  async (req, ctx) => {
    const body: ResponseBody<'redeliverMonitorDelivery', 202> = {
      delivery: await redeliver(deps.knex, ctx.state.principal!.workspaceId, req.params.id, req.params.delivery_id),
    };
    return { status: 202, body };
  };
