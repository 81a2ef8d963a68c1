/**
 * The outbox: the webhook events of recorded changes, written into the delivery queue in the
 * transaction of the lake write that recorded the changes (changes.ts), so a change and its events
 * commit or roll back together; and, on withdrawal, their cancellation. The delivery side (attempts,
 * the log, redelivery) is domain/webhooks/deliveries.ts and src/jobs/deliveryWorker.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { forgetSubject, insertDeliveries, subscribedMonitors, type NewDelivery } from '../../../db/repositories/deliveries';
import { insertFeedEvents, tombstoneSubjectEvents, type NewFeedEvent } from '../../../db/repositories/eventFeed';
import { destinationOf, payload } from '../../webhooks/payload';
import { subjectOf } from '../../webhooks/subject';

/** A change as recorded in the change log (its id), the source of one event per subscribed monitor. */
export interface RecordedChange {
  changeId: number;
  kind: 'person' | 'company';
  subjectId: string;
  event: string;
  diff: object;
}

/**
 * Called by recordChanges inside the lake write's transaction: one event per change per monitor
 * subscribed to its event, so a change and its events commit or roll back together. Every such
 * event goes to the workspace's feed, an inactive monitor's too (the feed keeps 30 days whatever its
 * webhook does: a puller, `enrich listen`, never goes silent); only an active monitor's goes to its
 * webhook (deactivation stops deliveries, not the feed). Returns the deliveries enqueued.
 */
export async function enqueueChangeEvents(trx: Knex.Transaction, changes: readonly RecordedChange[]): Promise<number> {
  const rows: NewDelivery[] = [];
  const feed: NewFeedEvent[] = [];
  const now = new Date();
  for (const kind of ['person', 'company'] as const) {
    const ofKind = changes.filter((c) => c.kind === kind);
    if (!ofKind.length) continue;
    const monitors = await subscribedMonitors(trx, kind, [...new Set(ofKind.map((c) => c.subjectId))]);
    if (!monitors.length) continue;
    for (const change of ofKind) {
      for (const m of monitors) {
        if (m.subject_id !== change.subjectId || !m.events.includes(change.event)) continue;
        const id = randomUUID();
        const body = payload(id, change.event, m.monitor_id, now, change.diff, subjectOf(kind, { id: m.subject_id, username: m.username, network_url: m.network_url }));
        feed.push({ id, workspace_id: m.workspace_id, monitor_id: m.monitor_id, event: change.event, subject_id: change.subjectId, body });
        if (!m.active) continue;
        rows.push({
          id,
          monitor_id: m.monitor_id,
          event: change.event,
          change_id: change.changeId,
          subject_id: change.subjectId,
          destination: destinationOf(m.webhook_url),
          body,
          manual: false,
        });
      }
    }
  }
  await insertFeedEvents(trx, feed);
  await insertDeliveries(trx, rows);
  return rows.length;
}

/**
 * Withdrawal (lake/suppression.ts, in its transaction): nothing about the subject is sent after it,
 * and its events leave every feed (their positions stay, for `after=`).
 */
export async function forgetDeliveriesOf(trx: Knex.Transaction, subjectId: string): Promise<void> {
  await forgetSubject(trx, subjectId);
  await tombstoneSubjectEvents(trx, subjectId);
}
