import { enrichCompanyRealtime as enrich } from '../../../domain/live/realtime';
import { pinWriteBack, realtimeRequest, realtimeResult } from './realtimeResult';
import type { HandlerDeps, OperationHandler } from '../types';

export const enrichCompanyRealtime =
  (deps: HandlerDeps): OperationHandler<'enrichCompanyRealtime'> =>
  async (req, ctx) => {
    const request = realtimeRequest(req.query, ctx);
    return realtimeResult(pinWriteBack(deps.reads, request, await enrich(deps.live, request)));
  };
