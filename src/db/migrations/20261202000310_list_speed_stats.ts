import type { Knex } from 'knex';

/**
 * Statistics for the expression indexes of 20261202000300_list_speed. PostgreSQL gathers the
 * statistics of an index's expressions (lower(school_name), lower(current_company_industry)) only
 * when the table is analyzed after the index exists; until autovacuum gets to it the planner
 * guesses, and on a 1M-person lake it guessed 6,759 alumni of a school that has 70,555, hashing
 * them all for a count bounded at 10,001 (440 ms instead of 53 ms). Analyzing samples a fixed
 * number of rows, so it takes seconds whatever the lake's size.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('analyze person_educations, persons');
}

export async function down(): Promise<void> {
  // Statistics are not undone.
}
