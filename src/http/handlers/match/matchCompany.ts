import { matchCompany as match } from '../../../domain/match/company';
import { RawJson } from '../../rawJson';
import type { HandlerDeps, OperationHandler } from '../types';
import { lakeRead } from '../lakeRead';

/** A lake read (a read replica when one is in use); the record is spliced in as stored. */
export const matchCompany =
  (deps: HandlerDeps): OperationHandler<'matchCompany'> =>
  async (req, ctx) => {
    const outcome = await lakeRead(deps, ctx, (db) => match(db, req.body));
    return { body: { data: new RawJson(outcome.text), match: outcome.match, ...(outcome.candidates ? { candidates: outcome.candidates } : {}) } };
  };
