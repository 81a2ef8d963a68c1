/**
 * listEvents: the workspace's event feed, the change events its monitors subscribed to, each with
 * exactly the body of its webhook delivery as stored (the bytes that were signed), as JSON text.
 * Oldest first; `after=<event id>` resumes right after an event a subscriber has seen.
 */
import type { Knex } from 'knex';
import { feedPositionOf, listFeed } from '../../db/repositories/eventFeed';
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
    if (!position) throw validationError('after: not an event of this workspace (or past the 30-day retention)');
    paging = { ...paging, page: undefined, offset: 0, after: position };
  }
  return listed(paging, async (page) => {
    const result = await listFeed(db, { workspaceId, monitorId, events: req.event, since: req.since, retentionDays: EVENT_RETENTION_DAYS }, page);
    return { ...result, rows: result.rows.map((r) => r.body) };
  });
}
