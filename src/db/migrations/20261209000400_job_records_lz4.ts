import type { Knex } from 'knex';

/**
 * A list job's stored records (list_job_rows.record, a few KB of JSON a row, TOASTed) are compressed
 * with lz4 instead of the default pglz: writing a chunk's 500 records took about half the time in
 * a measurement (bench/jobsProfile.ts, README's list jobs section), and the results are read back
 * as often as they are written. A server built without lz4 keeps pglz (the statement is skipped).
 * Existing values keep their compression; new ones use lz4. One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    do $$ begin
      execute 'alter table list_job_rows alter column record set compression lz4';
    exception when feature_not_supported or invalid_parameter_value then null;
    end $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table list_job_rows alter column record set compression default');
}
