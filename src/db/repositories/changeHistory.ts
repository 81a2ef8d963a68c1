/**
 * A record's history: its entries of the change log (migration 20261122001000_live), newest first.
 * Served by the index change_log_subject (subject_id, id). A withdrawn subject's entries lost their
 * subject_id (redactChanges in changeLog.ts), so they are no longer anybody's history.
 */
import type { Knex } from 'knex';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type Page } from './pages';

export interface HistoryRow {
  id: string;
  event: string;
  diff: Record<string, unknown>;
  origin: 'import' | 'refresh' | 'realtime';
  detected_at: Date;
}

// Qualified: the select's text `id` must not be what the order and the keyset compare.
const HISTORY_ORDER = [term('change_log.id', 'desc', 'bigint')];

export async function listSubjectChanges(
  db: Knex,
  q: { kind: 'person' | 'company'; subjectId: string; since?: string },
  page: Page,
): Promise<ListResult<HistoryRow>> {
  const base = () => {
    const query = db('change_log').where({ subject_id: q.subjectId, kind: q.kind });
    if (q.since !== undefined) query.where('detected_at', '>=', q.since);
    return query;
  };
  const [rows, count] = await Promise.all([
    pageQuery(db, base().select(db.raw('id::text as id'), 'event', 'diff', 'origin', 'detected_at'), HISTORY_ORDER, page),
    boundedCount(db, base().select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows as Record<string, unknown>[], HISTORY_ORDER, page);
  return { rows: split.rows as unknown as HistoryRow[], next: split.next, ...totalOf(count) };
}
