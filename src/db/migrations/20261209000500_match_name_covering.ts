import type { Knex } from 'knex';

/**
 * Person candidates by name key without reading the table (issue 33, latency at 1M). The name-key
 * arm without an employer reads every person of the query's name keys and keeps the 40 whose folded
 * names are closest; at 1M a common last name is a group of 1,000-2,500 persons, and with the former
 * index (lake_name_key(full_name), current_company_id) each of them was a visit of its table row
 * plus a lake_fold (unaccent, regexp) of its name: most of a match's time at 1M.
 *
 * This index holds what the arms read: the key, the employer, the folded name (a key column: an
 * INCLUDE column cannot be an expression) and, as INCLUDE columns, the id and the full name (the
 * planner offers an index-only scan only when the columns an expression is made of are in the
 * index; it then takes lake_fold(full_name) from the index instead of computing it). Both person
 * name-key arms are index-only scans of it (rows not yet all-visible still cost a visit of the
 * table, as any index-only scan). It replaces persons_match_name_key, whose two columns are its
 * first two. One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index if not exists persons_match_name on persons (lake_name_key(full_name), current_company_id, lake_fold(full_name)) include (id, full_name)',
  );
  await knex.raw('drop index if exists persons_match_name_key');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists persons_match_name_key on persons (lake_name_key(full_name), current_company_id)');
  await knex.raw('drop index if exists persons_match_name');
}
