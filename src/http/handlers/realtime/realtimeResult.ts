import type { LakeReads } from '../../../db/replicas';
import type { RealtimeAnswer, RealtimeRequest } from '../../../domain/live/realtime';
import { RawJson } from '../../rawJson';
import type { AppContext } from '../../state';
import type { HandlerResult } from '../types';

/** The realtime body: the stored record spliced in unparsed, its source and the metered cost. */
export function realtimeResult(answer: RealtimeAnswer): HandlerResult {
  return {
    body: { data: new RawJson(answer.record), source: answer.source, cost_usd: answer.cost_usd },
    headers: answer.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
  };
}

/** What a realtime call asks of the domain: the lookup, who pays for it, and its idempotency key. */
export function realtimeRequest(query: RealtimeRequest['query'], ctx: AppContext): RealtimeRequest {
  return {
    query,
    workspaceId: ctx.state.principal!.workspaceId,
    accountId: ctx.state.principal!.accountId,
    idempotencyKey: ctx.get('idempotency-key') || undefined,
  };
}

/**
 * Read-your-writes across read replicas: after a write-back (`live`), the workspace's lake reads go
 * to the primary for a bounded time (db/replicas.ts), so its next read sees what this call stored.
 */
export function pinWriteBack(reads: LakeReads, request: RealtimeRequest, answer: RealtimeAnswer): RealtimeAnswer {
  if (answer.source === 'live') reads.pin(request.workspaceId);
  return answer;
}
