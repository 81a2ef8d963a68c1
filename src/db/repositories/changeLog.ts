/** The durable change log (migration 20261122001000_live). */
import type { Knex } from 'knex';

export interface ChangeRow {
  kind: 'person' | 'company';
  subject_id: string;
  event: string;
  diff: object;
  origin: 'refresh' | 'realtime' | 'import';
}

export interface StoredChange {
  id: number;
  kind: 'person' | 'company';
  subject_id: string | null;
  event: string;
  diff: Record<string, unknown> | null;
  origin: string;
  detected_at: Date;
  redacted_at: Date | null;
}

/** One statement for the whole batch. Returns the new entries' ids, in order. */
export async function insertChanges(trx: Knex.Transaction, rows: readonly ChangeRow[]): Promise<number[]> {
  if (!rows.length) return [];
  const { rows: inserted } = await trx.raw<{ rows: { id: number }[] }>(
    `insert into change_log (kind, subject_id, event, diff, origin)
     select kind, subject_id, event, diff, origin
     from unnest(?::text[], ?::uuid[], ?::text[], ?::jsonb[], ?::text[]) as t(kind, subject_id, event, diff, origin)
     returning id`,
    [
      rows.map((r) => r.kind),
      rows.map((r) => r.subject_id),
      rows.map((r) => r.event),
      rows.map((r) => JSON.stringify(r.diff)),
      rows.map((r) => r.origin),
    ],
  );
  return inserted.map((r) => r.id);
}

export interface ChangeQuery {
  afterId?: number;
  limit: number;
  kind?: 'person' | 'company';
  subjectId?: string;
  /** Newest first instead of oldest first. */
  newest?: boolean;
}

export async function listChanges(db: Knex, q: ChangeQuery): Promise<StoredChange[]> {
  const query = db('change_log').select('*').limit(q.limit);
  if (q.afterId !== undefined) query.where('id', '>', q.afterId);
  if (q.kind) query.where('kind', q.kind);
  if (q.subjectId) query.where('subject_id', q.subjectId);
  query.orderBy('id', q.newest ? 'desc' : 'asc');
  return query;
}

/** A withdrawn subject's entries keep their event and time, nothing that points at the subject. */
export async function redactChanges(trx: Knex.Transaction, subjectId: string): Promise<number> {
  return trx('change_log')
    .where('subject_id', subjectId)
    .update({ subject_id: null, diff: null, redacted_at: trx.fn.now() });
}

export async function countChanges(db: Knex, filter: { event?: string; subjectId?: string } = {}): Promise<number> {
  const query = db('change_log').count<{ count: number }[]>({ count: '*' });
  if (filter.event) query.where('event', filter.event);
  if (filter.subjectId) query.where('subject_id', filter.subjectId);
  const row = await query.first();
  return Number(row?.count ?? 0);
}
