import { listJobs as list } from '../../../domain/jobs/jobs';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

export const listJobs =
  (deps: HandlerDeps): OperationHandler<'listJobs'> =>
  async (req, ctx) => {
    const body: ResponseBody<'listJobs', 200> = await list(deps.knex, ctx.state.principal!.workspaceId, req.query);
    return { body };
  };
