import type { Knex } from 'knex';

/**
 * Search and relationship lists at a million profiles (issue 14). With `total` bounded at 10,000
 * (db/repositories/pages.ts) the slow lists no longer count every match, but the count still has
 * to find up to 10,001 of them, and the combinations below made PostgreSQL AND two large bitmaps
 * (hundreds of thousands of rows each) and visit the table for every candidate:
 *
 * - title words + country: one GIN index over both (btree_gin gives GIN the country's equality),
 *   so the two conditions meet inside one index scan (the planner takes it with the SSD
 *   random_page_cost of db/tuning.ts; with PostgreSQL's default of 4 it filters the country on the
 *   table instead);
 * - band + industry: one btree over both, answered from the index alone for the count;
 * - alumni: the school index now carries person_id, so counting distinct alumni reads the index
 *   alone (it replaces person_educations_school, of which it is an extension).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create extension if not exists btree_gin;
    create index persons_title_country on persons using gin (title_words, geo_country_code);
    create index persons_seniority_industry on persons (seniority, lower(current_company_industry)) where seniority is not null;
    create index person_educations_school_person on person_educations (lower(school_name), person_id);
    drop index person_educations_school;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create index person_educations_school on person_educations (lower(school_name));
    drop index if exists person_educations_school_person, persons_seniority_industry, persons_title_country;
  `);
}
