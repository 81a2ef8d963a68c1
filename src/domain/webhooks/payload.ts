/**
 * What a webhook delivery carries and where it goes: the contract's payload bytes and the
 * destination a delivery counts against. Pure; shared by the outbox (domain/lake/write/outbox.ts,
 * events of changes) and by deliveries.ts (`monitor.test`).
 */

import type { EventSubject } from './subject';

export const TEST_EVENT = 'monitor.test';

/** The contract's payload, serialized once: every attempt sends these exact bytes. */
export function payload(id: string, event: string, monitorId: string, createdAt: Date, diff: object, subject: EventSubject): string {
  return JSON.stringify({ id, event, monitor_id: monitorId, timestamp: String(Math.floor(createdAt.getTime() / 1000)), diff, subject });
}

/** host:port of a webhook URL: the unit of the per-destination concurrency cap. */
export const destinationOf = (webhookUrl: string) => new URL(webhookUrl).host.toLowerCase();
