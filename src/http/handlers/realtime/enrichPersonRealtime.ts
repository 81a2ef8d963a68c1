import { enrichPersonRealtime as enrich } from '../../../domain/live/realtime';
import { realtimeRequest, realtimeResult } from './realtimeResult';
import type { HandlerDeps, OperationHandler } from '../types';

export const enrichPersonRealtime =
  (deps: HandlerDeps): OperationHandler<'enrichPersonRealtime'> =>
  async (req, ctx) =>
    realtimeResult(await enrich(deps.live, realtimeRequest(req.query, ctx)));
