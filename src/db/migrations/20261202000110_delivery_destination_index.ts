import type { Knex } from 'knex';

/**
 * The delivery worker's claim walks the destinations that have pending deliveries (a loose index
 * scan) and takes each one's oldest due rows up to its room: both served by this index, so a claim
 * costs a few index probes per destination instead of sorting the whole backlog.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index monitor_deliveries_destination_due on monitor_deliveries (destination, next_attempt_at) where state = 'pending'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists monitor_deliveries_destination_due');
}
