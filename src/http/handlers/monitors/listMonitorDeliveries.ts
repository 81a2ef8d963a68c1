import { listDeliveries } from '../../../domain/webhooks/deliveries';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listMonitorDeliveries =
  (deps: HandlerDeps): OperationHandler<'listMonitorDeliveries'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listMonitorDeliveries', 200> = await listDeliveries(
      deps.knex,
      ctx.state.principal!.workspaceId,
      req.params.id,
      req.query,
    );
    return { body };
  };
