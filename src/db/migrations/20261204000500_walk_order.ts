import type { Knex } from 'knex';

/**
 * Lists without an order of their own go by id (issue 20: a cursor walk in `fetched_at` order
 * missed the rows the refresh re-verified ahead of it). The indexes that served "most recently
 * verified first" for a filter end in the id instead, so a page of a filtered search without
 * `query` is still read in order from an index:
 *
 * - searchPeople `location` (and `seniority`) without `query`: (country, id), (band, id);
 * - listSimilarPeople: (industry, country, band, id).
 *
 * persons_recent (fetched_at desc, id) stays: the refresh gauge's min(fetched_at) reads it. The
 * replaced indexes are dropped: every re-verification rewrote them (fetched_at was in each).
 * One DDL statement per call (CONVENTIONS: Citus).
 */
const UP = [
  'create index persons_country_id on persons (geo_country_code, id)',
  'create index persons_seniority_id on persons (seniority, id) where seniority is not null',
  'create index persons_similar_id on persons (current_company_industry, geo_country_code, seniority, id)',
  'drop index persons_country',
  'drop index persons_seniority',
  'drop index persons_similar',
  'analyze persons',
];

const DOWN = [
  'create index persons_country on persons (geo_country_code, fetched_at desc, id)',
  'create index persons_seniority on persons (seniority, fetched_at desc, id) where seniority is not null',
  'create index persons_similar on persons (current_company_industry, geo_country_code, seniority, fetched_at desc, id)',
  'drop index persons_country_id',
  'drop index persons_seniority_id',
  'drop index persons_similar_id',
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
