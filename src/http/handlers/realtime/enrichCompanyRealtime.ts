import { enrichCompanyRealtime as enrich } from '../../../domain/live/realtime';
import { realtimeRequest, realtimeResult } from './realtimeResult';
import type { HandlerDeps, OperationHandler } from '../types';

export const enrichCompanyRealtime =
  (deps: HandlerDeps): OperationHandler<'enrichCompanyRealtime'> =>
  async (req, ctx) =>
    realtimeResult(await enrich(deps.live, realtimeRequest(req.query, ctx)));
