import type { Knex } from 'knex';

/**
 * The event feed gets a table of its own, in positions given by one sequencer (issue 32).
 *
 * Before, the feed was the delivery queue itself, ordered by the inserting transaction's id and
 * listed only below the snapshot horizon (`pg_snapshot_xmin`), which is cluster-wide: a
 * transaction left open in ANY database of the server held every feed back for as long as it
 * lasted; deleting a monitor deleted its events (so `after=` one of them was a 400); and only
 * active monitors got events, so a deactivated monitor's feed went silent.
 *
 *   event_feed       one row per event (a change event of a subscribed monitor, active or not, or a
 *                    `monitor.test`), written in the transaction that records it, with no position.
 *   seq              insertion order (an identity): the order the sequencer gives positions in,
 *                    among the rows it finds committed at once.
 *   position         null until the sequencer (db/repositories/eventFeed.ts sequencePending, one
 *                    process at a time under an advisory lock, every ~200 ms) numbers the committed
 *                    rows after the largest position given, in one short transaction. Positions
 *                    therefore become visible in increasing order only: a reader paging by position
 *                    can never find a row later appearing before one it has read.
 *   workspace_id     the feed is a workspace's; no foreign key to monitors, so a deleted monitor's
 *                    positions stay and a subscriber can continue after any event it saw.
 *   body             the webhook body as stored (the bytes that were signed); null once the event
 *                    left the feed (its monitor deleted, its subject withdrawn): a tombstone that
 *                    keeps the position for `after=` and shows nothing.
 * The rows of the old feed are copied in their feed order; the delivery queue loses its feed
 * columns. Local on the coordinator under Citus, like the delivery queue (docs/scale-out.md).
 * One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table event_feed (
      id uuid primary key,
      workspace_id uuid not null references workspaces (id) on delete cascade,
      monitor_id uuid not null,
      event text not null,
      subject_id uuid,
      body text,
      created_at timestamptz not null default now(),
      seq bigint generated always as identity,
      position bigint
    )`);
  // GET /events: a workspace's events in position order (and `after=`'s resume point).
  await knex.raw('create index event_feed_workspace on event_feed (workspace_id, position) where position is not null');
  // GET /events?monitor_id=: one monitor's events in position order.
  await knex.raw('create index event_feed_monitor on event_feed (monitor_id, position) where position is not null');
  // The sequencer: the largest position given (and no position twice).
  await knex.raw('create unique index event_feed_position on event_feed (position)');
  // The sequencer: the rows still waiting for a position, in insertion order.
  await knex.raw('create index event_feed_unsequenced on event_feed (seq) where position is null');
  // Withdrawal: the events about one subject.
  await knex.raw('create index event_feed_subject on event_feed (subject_id) where subject_id is not null');
  // Retention: the oldest rows first.
  await knex.raw('create index event_feed_created on event_feed (created_at)');
  // The old feed, in its order: change events whose subject was withdrawn and test events of a
  // withdrawn monitor become tombstones (they had left the feed).
  await knex.raw(`
    insert into event_feed (id, workspace_id, monitor_id, event, subject_id, body, created_at, position)
    select d.id, m.workspace_id, d.monitor_id, d.event, d.subject_id,
           case when (d.change_id is not null and d.subject_id is null) or m.subject_slug is null then null else d.body end,
           d.created_at, row_number() over (order by d.feed_xid, d.feed_seq)
    from monitor_deliveries d join monitors m on m.id = d.monitor_id`);
  await knex.raw('drop index if exists monitor_deliveries_feed');
  await knex.raw('alter table monitor_deliveries drop column if exists feed_seq');
  await knex.raw('alter table monitor_deliveries drop column if exists feed_xid');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table monitor_deliveries add column if not exists feed_xid xid8 not null default pg_current_xact_id()');
  await knex.raw('alter table monitor_deliveries add column if not exists feed_seq bigint generated always as identity');
  await knex.raw('create index if not exists monitor_deliveries_feed on monitor_deliveries (monitor_id, feed_xid, feed_seq)');
  await knex.raw('drop table if exists event_feed');
}
