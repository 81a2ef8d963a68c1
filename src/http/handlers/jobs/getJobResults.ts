import { ownJob } from '../../../domain/jobs/jobs';
import { csvResults, ndjsonResults } from '../../../domain/jobs/results';
import type { HandlerDeps, HandlerResult, OperationHandler } from '../types';

const NDJSON = 'application/x-ndjson';

export const getJobResults =
  (deps: HandlerDeps): OperationHandler<'getJobResults'> =>
  async (req, ctx): Promise<HandlerResult> => {
    const job = await ownJob(deps.knex, ctx.state.principal!.workspaceId, req.params.id);
    // `format` wins; else Accept (CSV unless NDJSON is preferred).
    const format = req.query.format ?? (ctx.accepts('text/csv', NDJSON) === NDJSON ? 'ndjson' : 'csv');
    const from = req.query.from_row ?? 1;
    if (format === 'ndjson') {
      return { body: ndjsonResults(deps.knex, job, from), headers: { 'Content-Type': `${NDJSON}; charset=utf-8` } };
    }
    return {
      body: csvResults(deps.knex, job, from),
      headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="job-${job.id}.csv"` },
    };
  };
