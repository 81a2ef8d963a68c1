import type { Knex } from 'knex';

/**
 * The event feed (GET /events) reads the delivery queue's change events in the order their
 * transactions made them visible, so that a subscriber paging by cursor sees every event exactly
 * once: each row keeps the id of the transaction that inserted it (`feed_xid`) and a sequence
 * (`feed_seq`). The feed lists only rows whose transaction is older than every transaction still
 * running (`pg_snapshot_xmin`), so no row can later appear before a position already read.
 * One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table monitor_deliveries add column feed_xid xid8 not null default pg_current_xact_id()');
  await knex.raw('alter table monitor_deliveries add column feed_seq bigint generated always as identity');
  // GET /events: a workspace's monitors' events in feed order (monitor_id first: the feed filters by
  // the workspace's monitors, or by one).
  await knex.raw('create index monitor_deliveries_feed on monitor_deliveries (monitor_id, feed_xid, feed_seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists monitor_deliveries_feed');
  await knex.raw('alter table monitor_deliveries drop column if exists feed_seq');
  await knex.raw('alter table monitor_deliveries drop column if exists feed_xid');
}
