/**
 * The event feed (GET /events; migration 20261208003200_event_feed_positions): its own table,
 * written with the delivery queue in the transaction that records an event, and numbered by one
 * sequencer. Readers page by `position`, which the sequencer gives only to committed rows, in
 * increasing order, one short transaction at a time under an advisory lock: a later page can never
 * gain a row before a position already read (exactly once, in order), and nothing outside this
 * database's feed (another database's open transaction, a long import) holds it back. Reads on the
 * primary only.
 */
import type { Knex } from 'knex';
import { listenOnChannel, type AuthChangeSubscription, type ChannelHandlers, type ChannelTiming } from './authChanges';
import { lockKey } from './locks';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type Page, type SortKey } from './pages';

export interface FeedRow {
  id: string;
  body: string;
}

/**
 * An event belongs to a monitor (its change events, `monitor.test`) or to a list job
 * (`job.completed`, `job.failed`; migration 20261209000200_job_feed_events): exactly one is set.
 */
export type FeedOwner = { monitor_id: string; job_id?: undefined } | { job_id: string; monitor_id?: undefined };

export type NewFeedEvent = FeedOwner & {
  id: string;
  workspace_id: string;
  event: string;
  subject_id: string | null;
  body: string;
};

export interface FeedFilter {
  workspaceId: string;
  monitorId?: string;
  events?: string[];
  since?: string;
  retentionDays: number;
}

export const FEED_ORDER = [term('f.position', 'asc', 'bigint')];

/**
 * The channel that wakes the sequencers (src/jobs/feedSequencer.ts) when rows wait for a position.
 * The payload is empty: PostgreSQL folds a transaction's identical notifications into one.
 */
export const FEED_CHANNEL = 'enrich_feed_pending';

/**
 * Every sequencer's wake-up: listens on FEED_CHANNEL on a connection of its own (reconnecting
 * forever, with a heartbeat); while it is lost the sequencer polls.
 */
export function listenForFeedRows(databaseUrl: string, handlers: ChannelHandlers, timing?: Partial<ChannelTiming>): AuthChangeSubscription {
  return listenOnChannel(databaseUrl, FEED_CHANNEL, 'enrich-feed-listener', handlers, timing);
}

/**
 * One statement for the batch; the rows wait for the sequencer's position. The same statement
 * sends FEED_CHANNEL's notification, so it is part of the rows' transaction (the caller's, or the
 * statement's own): delivered when they commit, never for rows rolled back, never before the rows
 * can be seen.
 */
export async function insertFeedEvents(db: Knex | Knex.Transaction, rows: readonly NewFeedEvent[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `with inserted as (
       insert into event_feed (id, workspace_id, monitor_id, job_id, event, subject_id, body)
       select * from unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::uuid[], ?::text[])
       returning 1)
     select pg_notify('${FEED_CHANNEL}', '') where exists (select 1 from inserted)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.workspace_id),
      rows.map((r) => r.monitor_id ?? null),
      rows.map((r) => r.job_id ?? null),
      rows.map((r) => r.event),
      rows.map((r) => r.subject_id),
      rows.map((r) => r.body),
    ] as unknown as Knex.RawBinding[],
  );
}

function feedRows(db: Knex, f: FeedFilter): Knex.QueryBuilder {
  const q = db('event_feed as f')
    .where('f.workspace_id', f.workspaceId)
    .whereNotNull('f.position')
    // A tombstone (monitor or job deleted, subject withdrawn) keeps its position, shows nothing.
    .whereNotNull('f.body')
    .whereRaw(`f.created_at > now() - make_interval(days => ?)`, [f.retentionDays]);
  if (f.monitorId) q.where('f.monitor_id', f.monitorId);
  if (f.events?.length) q.whereRaw('f.event = any(?::text[])', [f.events]);
  if (f.since) q.where('f.created_at', '>=', f.since);
  return q;
}

export async function listFeed(db: Knex, f: FeedFilter, page: Page): Promise<ListResult<FeedRow>> {
  const [rows, count] = await Promise.all([
    pageQuery(db, feedRows(db, f).select('f.id', 'f.body'), FEED_ORDER, page),
    boundedCount(db, feedRows(db, f).select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows as Record<string, unknown>[], FEED_ORDER, page);
  return { rows: split.rows as unknown as FeedRow[], next: split.next, ...totalOf(count) };
}

/**
 * The feed position of one of the workspace's events (`after=`), or undefined: also of an event
 * that left the feed (a tombstone), so a subscriber continues after it whatever became of its
 * monitor or subject. An event not yet given a position is not one the subscriber can have seen.
 */
export async function feedPositionOf(db: Knex, workspaceId: string, eventId: string): Promise<SortKey | undefined> {
  const row = await db('event_feed')
    .where({ workspace_id: workspaceId, id: eventId })
    .whereNotNull('position')
    .first(db.raw('position::text as p'));
  return row ? [row.p as string] : undefined;
}

/** The one sequencer's advisory lock (per database: another database's sequencer is another feed). */
const SEQUENCER_LOCK = lockKey('event_feed:sequencer');

/**
 * One pass of the sequencer, in its own short transaction: if no other process holds the
 * sequencer's lock, the committed rows without a position get the next positions, in insertion
 * order, at most `limit` of them. Returns how many were numbered (0 also when another process
 * holds the lock). The lock is taken by its own statement, so the numbering statement's snapshot
 * (READ COMMITTED: one per statement) sees the previous pass committed and its largest position.
 * `timeoutMs` bounds every statement (a stalled database fails the pass, never hangs it).
 */
export async function sequencePending(db: Knex, limit: number, timeoutMs: number): Promise<number> {
  return db.transaction(async (trx) => {
    await trx.raw(`set local statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    await trx.raw(`set local lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    const { rows } = await trx.raw<{ rows: { leader: boolean }[] }>('select pg_try_advisory_xact_lock(?::bigint) as leader', [SEQUENCER_LOCK]);
    if (!rows[0]?.leader) return 0;
    const { rowCount } = await trx.raw<{ rowCount: number }>(
      `with batch as (
         select id, row_number() over (order by seq) as n
         from event_feed where position is null order by seq limit ?),
       base as (select coalesce(max(position), 0) as p from event_feed)
       update event_feed f set position = base.p + batch.n
       from batch, base where f.id = batch.id`,
      [limit],
    );
    return rowCount ?? 0;
  });
}

/**
 * Whether any row waits for a position: one probe of the partial index `event_feed_unsequenced`,
 * outside any transaction. The sequencer asks it before a pass, so an idle feed costs one short
 * statement per interval instead of a transaction of five (a row committed after the probe is
 * numbered by the next pass, as one committed after a pass's snapshot always was).
 */
export async function hasUnsequenced(db: Knex): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { pending: boolean }[] }>('select exists (select 1 from event_feed where position is null) as pending');
  return rows[0]?.pending === true;
}

/** The rows still waiting for a position, and how long the oldest has waited (the sequencer's gauge). */
export async function unsequencedBacklog(db: Knex): Promise<{ rows: number; oldest_seconds: number }> {
  const { rows } = await db.raw<{ rows: { rows: string; oldest_seconds: number | null }[] }>(
    `select count(*) as rows, extract(epoch from now() - min(created_at))::float8 as oldest_seconds from event_feed where position is null`,
  );
  return { rows: Number(rows[0]?.rows ?? 0), oldest_seconds: rows[0]?.oldest_seconds ?? 0 };
}

/** Events past the retention (and a day's margin) are deleted, at most `limit` a call. */
export async function pruneFeed(db: Knex, retentionDays: number, limit: number): Promise<number> {
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `delete from event_feed where id in (
       select id from event_feed where created_at < now() - make_interval(days => ?) order by created_at limit ?)`,
    [retentionDays + 1, limit],
  );
  return rowCount ?? 0;
}

/** A deleted monitor's events leave the feed; their positions stay (tombstones). */
export async function tombstoneMonitorEvents(db: Knex | Knex.Transaction, workspaceId: string, monitorId: string): Promise<number> {
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `update event_feed set body = null, subject_id = null where workspace_id = ? and monitor_id = ? and body is not null`,
    [workspaceId, monitorId],
  );
  return rowCount ?? 0;
}

/** A deleted job's events leave the feed; their positions stay (tombstones, as a deleted monitor's). */
export async function tombstoneJobEvents(db: Knex | Knex.Transaction, jobIds: readonly string[]): Promise<number> {
  if (!jobIds.length) return 0;
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `update event_feed set body = null where job_id = any(?::uuid[]) and body is not null`,
    [jobIds as unknown as Knex.RawBinding],
  );
  return rowCount ?? 0;
}

/** Withdrawal of a subject: its events leave every feed (tombstones; nothing about it is kept). */
export async function tombstoneSubjectEvents(trx: Knex.Transaction, subjectId: string): Promise<number> {
  const { rowCount } = await trx.raw<{ rowCount: number }>(
    `update event_feed set body = null, subject_id = null where subject_id = ?`,
    [subjectId],
  );
  return rowCount ?? 0;
}
