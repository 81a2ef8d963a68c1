import type { Knex } from 'knex';

/**
 * People search by `company_id` without `query` goes in id order (people.ts searchPeople,
 * personHits.ts ID_ORDER), and no index had the employer followed by the id: the page query
 * fetched every current employee of the company from the heap (a bitmap scan of
 * persons_company_joined: one table page per employee, 3,000 and more for the largest company of
 * a 1M lake) only to sort them by id and keep 26, and the bounded count visited the same pages.
 * With (current_company_id, id) the page is the first 26 entries of the company's range (the
 * cursor's page the entries after its key) and the count an index-only scan of it (issue 35,
 * search p95 at 1M). Partial like the other employer indexes: most lists never ask for persons
 * without an employer. One DDL statement per call (CONVENTIONS: Citus).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists persons_company_id_order on persons (current_company_id, id) where current_company_id is not null');
  await knex.raw('analyze persons');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists persons_company_id_order');
}
