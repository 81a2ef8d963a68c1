import type { Knex } from 'knex';

/**
 * GET /jobs/{id}/deliveries reads a job's completion webhook by job (and deleting a job cascades to
 * it by job): an index on list_job_deliveries(job_id), which had only its primary key and the due
 * index. One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists list_job_deliveries_job on list_job_deliveries (job_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists list_job_deliveries_job');
}
