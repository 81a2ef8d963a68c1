/**
 * Recording detected changes: the change log is the durable source of monitor events. Every write
 * into the lake records its changes here, in the transaction of the write (domain/lake/write/writer.ts),
 * so there is no change without its write and no write without its changes. The webhook events of
 * the monitors subscribed to each change are enqueued here too, in the same transaction: no change
 * without its events, no event without its change.
 */
import type { Knex } from 'knex';
import { countChanges, insertChanges, listChanges, redactChanges, type StoredChange } from '../../../db/repositories/changeLog';
import { enqueueChangeEvents, forgetDeliveriesOf } from './outbox';
import type { ChangeEntry } from './diff';

export type ChangeOrigin = 'refresh' | 'realtime' | 'import';

export async function recordChanges(trx: Knex.Transaction, entries: readonly ChangeEntry[], origin: ChangeOrigin): Promise<void> {
  if (!entries.length) return;
  const ids = await insertChanges(
    trx,
    entries.map((e) => ({ kind: e.kind, subject_id: e.subjectId, event: e.event, diff: e.diff, origin })),
  );
  await enqueueChangeEvents(
    trx,
    entries.map((e, i) => ({ changeId: ids[i]!, kind: e.kind, subjectId: e.subjectId, event: e.event, diff: e.diff })),
  );
}

/**
 * Withdrawal: the subject's entries keep their event and time, no diff and no subject id; its
 * webhook deliveries that could still be sent are cancelled and lose their diff too.
 */
export async function forgetChangesOf(trx: Knex.Transaction, subjectId: string): Promise<void> {
  await redactChanges(trx, subjectId);
  await forgetDeliveriesOf(trx, subjectId);
}

export interface ChangeListing {
  id: number;
  kind: 'person' | 'company';
  subject_id: string | null;
  event: string;
  diff: Record<string, unknown> | null;
  origin: string;
  detected_at: string;
}

/** `enrich changes`: the log, oldest first after `afterId`, or the newest `limit` entries. */
export async function listChangeLog(
  db: Knex,
  q: { afterId?: number; limit: number; newest?: boolean; subjectId?: string },
): Promise<ChangeListing[]> {
  const rows: StoredChange[] = await listChanges(db, q);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    subject_id: r.subject_id,
    event: r.event,
    diff: r.diff,
    origin: r.origin,
    detected_at: r.detected_at.toISOString(),
  }));
}

export const countChangeLog = countChanges;
