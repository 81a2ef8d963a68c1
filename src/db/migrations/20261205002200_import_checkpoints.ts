import type { Knex } from 'knex';

/**
 * The checkpoint of a resumable initial load (`enrich import --initial-load`, domain/lake/importer.ts):
 * one row per lake kind while a load is under way, advanced in the transaction of each committed
 * chunk, so after a crash or `kill -9` `enrich import --resume` continues after the last committed
 * line and ends with the lake, change log and report an uninterrupted run gives. Holds which file
 * (its path, size and a hash of its first bytes), where in it (the byte offset of the decompressed
 * stream just after the last committed line, and that line's number), the report so far, and the
 * secondary indexes and foreign keys set aside, to be built again at the end. Deleted when the load
 * is done. One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table lake_import_checkpoints (
      kind text primary key check (kind in ('person', 'company')),
      file text not null,
      file_size bigint not null,
      file_head text not null,
      byte_offset bigint not null default 0,
      line bigint not null default 0,
      report jsonb not null,
      set_aside jsonb not null,
      started_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists lake_import_checkpoints');
}
