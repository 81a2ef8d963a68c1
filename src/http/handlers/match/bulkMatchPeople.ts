import { bulkMatchPeople as matchAll } from '../../../domain/match/bulk';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/** One lake read for the whole batch; counted once by the rate limit like any request. */
export const bulkMatchPeople =
  (deps: HandlerDeps): OperationHandler<'bulkMatchPeople'> =>
  async (req, ctx) => {
    const outcome = await lakeRead(deps, ctx, (db) => matchAll(db, req.body.queries, req.body.min_likelihood));
    return {
      body: {
        results: outcome.results.map(({ text, ...item }) => ({ ...item, data: text === null ? null : new RawJson(text) })),
        matched: outcome.matched,
        unmatched: outcome.unmatched,
        failed: outcome.failed,
      },
    };
  };
