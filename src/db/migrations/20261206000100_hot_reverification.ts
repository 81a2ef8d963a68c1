import type { Knex } from 'knex';

/**
 * A re-verification of an unchanged person (the refresh's and realtime's usual write: only
 * `fetched_at` moves, lakeTables.ts touchRecords) can be a HOT update: a new row version on the same
 * page and no entry in any of the table's indexes. Two things stood in the way:
 *
 * - persons_recent (fetched_at desc, id), the last index holding `fetched_at`, read only by the
 *   refresh gauge's min(fetched_at): every re-verification wrote a new entry in all of the table's
 *   indexes. The gauge reads the refresh queue's checked_at instead (refreshQueue.ts queueStats).
 * - full pages: `fillfactor` 90 keeps a tenth of each page the lake is loaded into free for the new
 *   versions (pages written before this migration keep no room until they are rewritten).
 *
 * One DDL statement per call (CONVENTIONS: Citus).
 */
const UP = ['drop index if exists persons_recent', 'alter table persons set (fillfactor = 90)'];

const DOWN = ['alter table persons reset (fillfactor)', 'create index if not exists persons_recent on persons (fetched_at desc, id)'];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
