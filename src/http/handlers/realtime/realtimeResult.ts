import { REALTIME_UNIT_PRICE_USD } from '../../../domain/account/account';
import type { RealtimeAnswer } from '../../../domain/live/realtime';
import { RawJson } from '../../rawJson';
import type { HandlerResult } from '../types';

/** The realtime body: the stored record spliced in unparsed, its source and the metered cost. */
export function realtimeResult(answer: RealtimeAnswer): HandlerResult {
  return {
    body: { data: new RawJson(answer.record), source: answer.source, cost_usd: REALTIME_UNIT_PRICE_USD },
    headers: answer.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
  };
}
