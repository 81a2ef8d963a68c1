import { AppError } from '../../../domain/errors';
import { submitJob } from '../../../domain/jobs/upload';
import type { HandlerDeps, OperationHandler, ResponseBody } from '../types';

/** The upload's media types: CSV, or NDJSON under its usual names. */
function formatOf(ctx: Parameters<OperationHandler<'createJob'>>[1]): 'csv' | 'ndjson' {
  if (ctx.is('text/csv')) return 'csv';
  if (ctx.is('application/x-ndjson', 'application/ndjson', 'application/jsonl')) return 'ndjson';
  throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be text/csv or application/x-ndjson (got ${ctx.get('content-type') || 'none'})`);
}

export const createJob =
  (deps: HandlerDeps): OperationHandler<'createJob'> =>
  async (req, ctx) => {
    const format = formatOf(ctx);
    if (ctx.get('content-encoding') && ctx.get('content-encoding').toLowerCase() !== 'identity') {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported for uploads: send the file as it is');
    }
    const { job, webhook_secret } = await submitJob(
      {
        db: deps.knex,
        limits: deps.config.jobs,
        webhooks: { keys: deps.monitors.keys, ssrf: deps.monitors.ssrf, resolveHost: deps.monitors.resolveHost },
      },
      ctx.state.principal!.workspaceId,
      req.query,
      { format, declaredBytes: ctx.request.length, body: ctx.req },
    );
    const body: ResponseBody<'createJob', 202> = { job, webhook_secret };
    return { status: 202, body };
  };
