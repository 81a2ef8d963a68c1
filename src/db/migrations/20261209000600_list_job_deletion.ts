import type { Knex } from 'knex';

/**
 * Deleting a large job in bounded steps (issue 34). A job of a million rows was deleted by one
 * cascading DELETE: 6 s in psql for 873,400 rows, over the requests' statement timeout, so the API
 * answered 503 and kept everything. Now DELETE /jobs/{id} (and the retention sweep) mark the job
 * `deleted_at` in one short statement (from then on it is answered as missing and never claimed),
 * and its rows are removed in batches, each its own short statement, before the job row goes.
 * Adding a nullable column without a default is a catalog change only (no table rewrite).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table list_jobs add column if not exists deleted_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table list_jobs drop column if exists deleted_at');
}
