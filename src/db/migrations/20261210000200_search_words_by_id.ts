import type { Knex } from 'knex';

/**
 * A people search with `query` that matches more than TEXT_TOTAL_BOUND persons is walked in id
 * order (people.ts searchPeople, under WALK_IN_ORDER) and the full-text condition checked on each
 * row walked: with a common word (found in 5% of a 1M lake) a page of 25 walks about 500 persons,
 * a company's name by cursor (0.3%) about 3,000 for a page of 10, and each walked row was a visit
 * of its table page (a profile row is 3 KB: about 3 to a page). This index holds the walk's order
 * and the condition's column, so the walk is an index-only scan of about 50 rows a page (issue 35,
 * search p95 at 1M; rows not yet all-visible still cost a visit of the table, as any index-only
 * scan). The bounded count of the same condition can read it the same way. One DDL statement per
 * call (CONVENTIONS: Citus).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists persons_words_by_id on persons (id) include (search_words)');
  await knex.raw('analyze persons');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists persons_words_by_id');
}
