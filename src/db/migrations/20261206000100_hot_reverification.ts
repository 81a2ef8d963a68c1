import type { Knex } from 'knex';

/**
 * A re-verification of an unchanged person or company (the refresh's and realtime's usual write:
 * only `fetched_at` moves, lakeTables.ts touchRecords) can be a HOT update: a new row version on the
 * same page and no entry in any of the table's indexes. Two things stood in the way:
 *
 * - persons_recent (fetched_at desc, id), the last index holding `fetched_at`, read only by the
 *   refresh gauge's min(fetched_at): every re-verification wrote a new entry in all of the table's
 *   indexes. The gauge reads the refresh queue's checked_at instead (refreshQueue.ts queueStats).
 * - full pages: `fillfactor` keeps part of each page the lake is loaded into free for new versions
 *   (pages written before this migration keep no room until they are rewritten): 90 for persons
 *   (~12 rows of ~600 bytes a page, the 4.7 KB record out of line), 75 for companies (~5 rows of
 *   ~1.6 KB, the record compressed in line), room for about one new version a page either way;
 *   PostgreSQL prunes the dead one when a later write reads the page.
 *
 * One DDL statement per call (CONVENTIONS: Citus).
 */
const UP = ['drop index if exists persons_recent', 'alter table persons set (fillfactor = 90)', 'alter table companies set (fillfactor = 75)'];

const DOWN = ['alter table companies reset (fillfactor)', 'alter table persons reset (fillfactor)', 'create index if not exists persons_recent on persons (fetched_at desc, id)'];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
