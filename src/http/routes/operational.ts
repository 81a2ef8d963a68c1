/** Routes outside the contract (no /api/v1 prefix, no key): Prometheus metrics. */
import Router from '@koa/router';
import type { Metrics } from '../metrics';
import type { RequestState } from '../state';

export function operationalRoutes(metrics: Metrics): Router<RequestState> {
  const router = new Router<RequestState>();
  router.get('/metrics', async (ctx) => {
    ctx.state.raw = true;
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
