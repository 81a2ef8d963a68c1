import type { Knex } from 'knex';

/**
 * The trigram arm of person matching at the query's employers (issue 33, latency at 1M on a mix
 * with many typos): `current_company_id = any(...) and <folded name> % <name>`, the closest first.
 *
 * Before, the planner had the trigram index on the folded name alone (persons_match_name_trgm) and
 * the company's staff indexes, and it chose by an estimate that was always wrong: pg_trgm's `%`
 * is estimated on the sampled names of the expression's statistics (the folded name is a column of
 * persons_match_name, so it has them), where a name with a typo matches almost none, so the
 * planner counted on ~10 rows where the index gives every name sharing a third of its trigrams
 * ("jame smiht": 653 persons at 100k, ten times that at 1M), each a visit of its table row to
 * recheck, to keep the one or two at the employer.
 *
 * Now:
 * - one GIN index over (current_company_id, the folded name's trigrams) (btree_gin gives GIN the
 *   company's equality; migration 20261202000300 created the extension): the employer and the
 *   trigrams in one index condition, so only persons at the employer that share the trigrams are
 *   rechecked. The arm without an employer reads its second column alone, as it read the former
 *   index (which this one replaces: the same entries, plus one per person for the employer).
 * - the folded name of this index is `lake_trgm_name(full_name)`: lake_fold's value under a name of
 *   its own (PL/pgSQL, so the planner does not inline it into lake_fold(full_name) and take that
 *   expression's statistics), and that column is kept without statistics (SET STATISTICS 0):
 *   pg_trgm then estimates `%` at its default selectivity (1% of the rows), close to what a common
 *   first name with a typo matches, and the planner takes the employer into the index condition
 *   (or intersects with a company index) instead of reading every similar name. The statistics
 *   target survives an initial load's rebuild of the indexes (db/repositories/lakeIndexes.ts).
 * The matching reads the same rows as before: `%` under the same thresholds, ordered by the same
 * similarity (bench:match:profile --answers, identical before and after).
 * One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  const own = ((await knex.raw('select current_schema() as s')).rows[0] as { s: string }).s.replace(/"/g, '""');
  await knex.raw(`create or replace function lake_trgm_name(full_name text) returns text language plpgsql immutable parallel safe strict as $$
    begin
      return "${own}".lake_fold(full_name);
    end $$`);
  await knex.raw('create index if not exists persons_match_trgm on persons using gin (current_company_id, lake_trgm_name(full_name) gin_trgm_ops)');
  await knex.raw('alter index persons_match_trgm alter column 2 set statistics 0');
  await knex.raw('drop index if exists persons_match_name_trgm');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists persons_match_name_trgm on persons using gin (lake_fold(full_name) gin_trgm_ops)');
  await knex.raw('drop index if exists persons_match_trgm');
  await knex.raw('drop function if exists lake_trgm_name(text)');
}
