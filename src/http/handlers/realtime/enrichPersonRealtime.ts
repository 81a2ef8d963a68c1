import { enrichPersonRealtime as enrich } from '../../../domain/live/realtime';
import { realtimeResult } from './realtimeResult';
import type { HandlerDeps, OperationHandler } from '../types';

export const enrichPersonRealtime =
  (deps: HandlerDeps): OperationHandler<'enrichPersonRealtime'> =>
  async (req, ctx) =>
    realtimeResult(
      await enrich(deps.live, {
        query: req.query,
        workspaceId: ctx.state.principal!.workspaceId,
        accountId: ctx.state.principal!.accountId,
        idempotencyKey: ctx.get('idempotency-key') || undefined,
      }),
    );
