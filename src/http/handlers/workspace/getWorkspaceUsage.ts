import { getWorkspaceUsage as usage } from '../../../domain/workspaces/dashboard';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const getWorkspaceUsage =
  (deps: HandlerDeps): OperationHandler<'getWorkspaceUsage'> =>
  async (req, ctx) => {
    const body: ResponseBody<'getWorkspaceUsage', 200> = await usage(
      deps.knex,
      ctx.state.principal!,
      req.query.days ?? 30,
      deps.config.rateLimitWindowSeconds,
    );
    return { body };
  };
