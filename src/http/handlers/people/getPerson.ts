import { personKeyFromQuery } from '../../../domain/lake/identifiers';
import { getPerson as lookup } from '../../../domain/people/lookup';
import { conditionalAnswer } from '../../conditional';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/**
 * Answers the stored PersonResult unparsed (tests validate it against the contract like any
 * response), with its ETag, or 304 when If-None-Match holds it.
 */
export const getPerson =
  (deps: HandlerDeps): OperationHandler<'getPerson'> =>
  (req, ctx) => lakeRead(deps, ctx, (db) => lookup(db, personKeyFromQuery(req.query))).then((text) => conditionalAnswer(ctx, text));
