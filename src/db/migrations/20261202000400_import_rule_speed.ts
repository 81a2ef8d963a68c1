import type { Knex } from 'knex';

/**
 * The job-change rule (lake_changed_employer, home: 20261122000100_lake_rules) restated, same
 * result for every record, in a form the planner can inline: its body was a query with a FROM
 * clause over two other SQL functions, which PostgreSQL runs as a separate query per call
 * (measured about 330 µs per record, half the cost of writing a person). Now the comparison is a
 * function of the two positions and lake_changed_employer a single expression over it, so each
 * position is found once per call and nothing runs as a sub-query.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Whether the current position c is at another employer than the previous one p (by company ID
    -- when both have one, else by name). Null when either is missing, as before.
    create or replace function lake_employer_changed(c jsonb, p jsonb) returns boolean language sql immutable parallel safe as $$
      select case when c is null or p is null then null else coalesce(case
        when lake_bigint(c->>'companyId') is not null and lake_bigint(p->>'companyId') is not null
          then lake_bigint(c->>'companyId') <> lake_bigint(p->>'companyId')
        else lower(c->>'companyName') is distinct from lower(p->>'companyName') end, false) end
    $$;
    create or replace function lake_changed_employer(r jsonb) returns boolean language sql immutable parallel safe as $$
      select lake_employer_changed(lake_current_position(r), lake_previous_position(r))
    $$;
  `);
}

/** Back to the definition of 20261122000100_lake_rules. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function lake_changed_employer(r jsonb) returns boolean language sql immutable parallel safe as $$
      select coalesce(case
        when lake_bigint(c->>'companyId') is not null and lake_bigint(p->>'companyId') is not null
          then lake_bigint(c->>'companyId') <> lake_bigint(p->>'companyId')
        else lower(c->>'companyName') is distinct from lower(p->>'companyName') end, false)
      from (select lake_current_position(r) c, lake_previous_position(r) p) x
      where c is not null and p is not null
    $$;
    drop function if exists lake_employer_changed(jsonb, jsonb);
  `);
}
