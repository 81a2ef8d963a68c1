/**
 * listEvents: the workspace's event feed, the change events its monitors subscribed to (active or
 * not) and their tests, each with exactly the body of its webhook delivery (the bytes that were
 * signed), as JSON text. In feed position order; `after=<event id>` resumes right after an event a
 * subscriber has seen, even one whose monitor was deleted or whose subject was withdrawn since.
 *
 * Positions are given by the sequencer (sequenceFeed, run by src/jobs/feedSequencer.ts in `enrich
 * serve` and `enrich worker`, woken by the notification each insert sends, at most once every
 * SEQUENCE_EVERY_MS, or polling at that interval while it cannot listen): an event is listed once a
 * sequencer pass after its commit has numbered it, so the delay is about one interval plus one
 * short transaction, whatever other transactions (of this database or another) do.
 */
import type { Knex } from 'knex';
import type { AuthChangeSubscription as ChannelSubscription, ChannelHandlers, ChannelTiming } from '../../db/repositories/authChanges';
import { feedPositionOf, hasUnsequenced, listenForFeedRows, listFeed, pruneFeed, sequencePending, unsequencedBacklog } from '../../db/repositories/eventFeed';
import { findMonitor } from '../../db/repositories/monitors';
import { notFound, validationError } from '../errors';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';

/** How long events stay in the feed (the contract's listEvents says so). */
export const EVENT_RETENTION_DAYS = 30;

export interface FeedRequest extends PageRequest {
  after?: string;
  monitor_id?: string;
  event?: string[];
  since?: string;
}

export async function listEvents(db: Knex, workspaceId: string, req: FeedRequest): Promise<ListBody<string>> {
  const monitorId = req.monitor_id?.toLowerCase();
  if (monitorId && !(await findMonitor(db, workspaceId, monitorId))) throw notFound('No monitor with this id in the workspace.');
  const filters = { monitor_id: monitorId, event: req.event ? [...req.event].sort() : undefined, since: req.since };
  const { after, ...pageReq } = req;
  let paging = pageOf(pageReq, 'listEvents', filters);
  if (after !== undefined) {
    if (req.cursor !== undefined || req.page !== undefined) throw validationError('after: cannot be combined with page or cursor');
    const position = await feedPositionOf(db, workspaceId, after.toLowerCase());
    if (!position) throw validationError('after: not an event of this workspace (or past the 30-day retention, or not listed yet)');
    paging = { ...paging, page: undefined, offset: 0, after: position };
  }
  return listed(paging, async (page) => {
    const result = await listFeed(db, { workspaceId, monitorId, events: req.event, since: req.since, retentionDays: EVENT_RETENTION_DAYS }, page);
    return { ...result, rows: result.rows.map((r) => r.body) };
  });
}

/** How often the sequencer numbers the committed events (the feed's visibility delay is about this). */
export const SEQUENCE_EVERY_MS = 200;
/**
 * How often a sequencer that listens for new rows (listenForNewEvents) still polls: the prune,
 * the gauges, and a last resort should a notification ever be missed. While the channel is lost
 * it polls every SEQUENCE_EVERY_MS, as before.
 */
export const SEQUENCE_FALLBACK_MS = 5_000;

export type { ChannelSubscription, ChannelHandlers, ChannelTiming };

/**
 * Tells the sequencer when committed events wait for a position: every insert of the feed sends a
 * notification in its own transaction (insertFeedEvents), so an idle server need not poll.
 */
export function listenForNewEvents(databaseUrl: string, handlers: ChannelHandlers, timing?: Partial<ChannelTiming>): ChannelSubscription {
  return listenForFeedRows(databaseUrl, handlers, timing);
}

/** Events numbered per pass at most (a backlog is numbered in passes back to back). */
export const SEQUENCE_BATCH = 5_000;

/**
 * One sequencer pass: the committed events without a position get the next ones, if this process
 * holds the sequencer's lock (one at a time per database; the others' passes do nothing). Returns
 * how many were numbered.
 */
export function sequenceFeed(db: Knex, timeoutMs: number): Promise<number> {
  return sequencePending(db, SEQUENCE_BATCH, timeoutMs);
}

/** Whether any committed event waits for a position (one index probe: an idle feed's whole pass). */
export function feedHasUnsequenced(db: Knex): Promise<boolean> {
  return hasUnsequenced(db);
}

/** Events waiting for a position, and the oldest one's age (a gauge, and what tests wait on). */
export function feedBacklog(db: Knex): Promise<{ rows: number; oldest_seconds: number }> {
  return unsequencedBacklog(db);
}

/** Deletes events past the retention, a batch at a time. */
export function pruneExpiredEvents(db: Knex): Promise<number> {
  return pruneFeed(db, EVENT_RETENTION_DAYS, 10_000);
}
