import { listEvents as list } from '../../../domain/events/feed';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';

/** The feed's events are the stored delivery bodies, spliced in unparsed (the bytes that were signed). */
export const listEvents =
  (deps: HandlerDeps): OperationHandler<'listEvents'> =>
  async (req, ctx) => {
    const page = await list(deps.knex, ctx.state.principal!.workspaceId, req.query);
    return { body: { ...page, results: page.results.map((text) => new RawJson(text)) } };
  };
