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
 * The stored record text still moves with `fetched_at` (it is part of it), so each re-verification
 * also compresses and writes the record again: with lz4 instead of pglz where the server was built
 * with it (Debian's and most packaged PostgreSQL are; the embedded one is not, and keeps pglz), which
 * compresses several times faster (measured: 1,000 re-verified persons 76 ms against 121 ms) and
 * reads back faster too. Values already stored keep their compression until rewritten. Skipped on a
 * database with the citus extension (the distributed layout's shards were not tested with it).
 *
 * One DDL statement per call (CONVENTIONS: Citus).
 */
const UP = ['drop index if exists persons_recent', 'alter table persons set (fillfactor = 90)', 'alter table companies set (fillfactor = 75)'];
const LZ4 = ['alter table persons alter column record set compression lz4', 'alter table companies alter column record set compression lz4'];

const DOWN = [
  'alter table companies alter column record set compression default',
  'alter table persons alter column record set compression default',
  'alter table companies reset (fillfactor)',
  'alter table persons reset (fillfactor)',
  'create index if not exists persons_recent on persons (fetched_at desc, id)',
];

/** Whether this server can compress with lz4 (built --with-lz4): the setting refuses the value otherwise. */
export async function supportsLz4(knex: Knex): Promise<boolean> {
  try {
    // A savepoint (or a transaction of its own): a refused value must not abort the caller's.
    await knex.transaction(async (trx) => {
      await trx.raw("set local default_toast_compression = 'lz4'");
    });
    return true;
  } catch {
    return false;
  }
}

async function hasCitus(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw<{ rows: { present: boolean }[] }>("select exists (select 1 from pg_extension where extname = 'citus') as present");
  return Boolean(rows[0]?.present);
}

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
  if ((await supportsLz4(knex)) && !(await hasCitus(knex))) for (const statement of LZ4) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
