/**
 * The event feed (GET /events) over the delivery queue's change events (migration
 * 20261204002300_event_feed). Feed order is (feed_xid, feed_seq); only rows whose transaction is
 * older than every running one (`pg_snapshot_xmin`) are read, so a later page can never gain a row
 * before a position already read: the subscriber's exactly-once, in-order guarantee. Reads on the
 * primary only (a standby's snapshot is not the primary's).
 */
import type { Knex } from 'knex';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type Page, type SortKey } from './pages';

export interface FeedRow {
  id: string;
  body: string;
}

export interface FeedFilter {
  workspaceId: string;
  monitorId?: string;
  events?: string[];
  since?: string;
  retentionDays: number;
}

export const FEED_ORDER = [term('d.feed_xid', 'asc', 'xid8'), term('d.feed_seq', 'asc', 'bigint')];

function feedRows(db: Knex, f: FeedFilter): Knex.QueryBuilder {
  const q = db('monitor_deliveries as d')
    .join('monitors as m', 'm.id', 'd.monitor_id')
    .where('m.workspace_id', f.workspaceId)
    // Change events and monitor.test (no change); not those of a withdrawn subject (subject_id
    // cleared by the withdrawal, deliveries.forgetSubject).
    .where((w) => w.whereNull('d.change_id').orWhereNotNull('d.subject_id'))
    .whereRaw('d.feed_xid < pg_snapshot_xmin(pg_current_snapshot())')
    .whereRaw(`d.created_at > now() - make_interval(days => ?)`, [f.retentionDays]);
  if (f.monitorId) q.where('d.monitor_id', f.monitorId);
  if (f.events?.length) q.whereRaw('d.event = any(?::text[])', [f.events]);
  if (f.since) q.where('d.created_at', '>=', f.since);
  return q;
}

export async function listFeed(db: Knex, f: FeedFilter, page: Page): Promise<ListResult<FeedRow>> {
  const [rows, count] = await Promise.all([
    pageQuery(db, feedRows(db, f).select('d.id', 'd.body'), FEED_ORDER, page),
    boundedCount(db, feedRows(db, f).select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows as Record<string, unknown>[], FEED_ORDER, page);
  return { rows: split.rows as unknown as FeedRow[], next: split.next, ...totalOf(count) };
}

/** The feed position of one of the workspace's events (`after=`), or undefined. */
export async function feedPositionOf(db: Knex, workspaceId: string, eventId: string): Promise<SortKey | undefined> {
  const row = await db('monitor_deliveries as d')
    .join('monitors as m', 'm.id', 'd.monitor_id')
    .where({ 'm.workspace_id': workspaceId, 'd.id': eventId })
    .first(db.raw('d.feed_xid::text as x'), db.raw('d.feed_seq::text as s'));
  return row ? [row.x as string, row.s as string] : undefined;
}
