import type { Knex } from 'knex';

/**
 * The lake's SQL-side rules for job changes and past employees, in a migration of their own.
 *
 * 20261121000400_search created these functions and was edited after it had shipped, so databases
 * migrated at different times may hold different versions of them. This migration restates every
 * rule as it stands (create or replace), so all databases converge, and it is their home from now
 * on: a rule that changes gets a new migration after this one; shipped migrations are not edited.
 *
 * Used by the lake writer (db/repositories/personRecords.ts) and the relationship lists
 * (db/repositories/personHits.ts, people.ts, companies.ts); the domain files that rely on them
 * (domain/people/relationships.ts, domain/companies/staff.ts) point here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The position held before the current one: the newest ended position (positions are stored
    -- newest first, current ones first). Null for a first job.
    create or replace function lake_previous_position(r jsonb) returns jsonb language sql immutable parallel safe as $$
      select p from jsonb_array_elements(coalesce(r->'positions', '[]')) with ordinality e(p, ord)
      where not coalesce((p->>'isCurrent')::boolean, false) order by ord limit 1
    $$;
    -- The current (newest) position, or null.
    create or replace function lake_current_position(r jsonb) returns jsonb language sql immutable parallel safe as $$
      select case when coalesce((r->'positions'->0->>'isCurrent')::boolean, false) then r->'positions'->0 end
    $$;
    -- A job change: the current position is at another employer than the previous one (compared by
    -- company ID when both have one, else by name). A new title at the same employer is not one.
    create or replace function lake_changed_employer(r jsonb) returns boolean language sql immutable parallel safe as $$
      select coalesce(case
        when lake_bigint(c->>'companyId') is not null and lake_bigint(p->>'companyId') is not null
          then lake_bigint(c->>'companyId') <> lake_bigint(p->>'companyId')
        else lower(c->>'companyName') is distinct from lower(p->>'companyName') end, false)
      from (select lake_current_position(r) c, lake_previous_position(r) p) x
      where c is not null and p is not null
    $$;
    -- Past employees: per company, the newest ended position (lowest ordinal), only at companies
    -- the person does not work at now. The ordinals (0 = newest) of those positions.
    create or replace function lake_latest_past_ordinals(r jsonb) returns int[] language sql immutable parallel safe as $$
      select coalesce(array_agg(ord - 1), '{}') from (
        select ord, not cur and row_number() over (partition by cid, cur order by ord) = 1
          and not bool_or(cur) over (partition by cid) as latest
        from (select ord, lake_bigint(p->>'companyId') as cid, coalesce((p->>'isCurrent')::boolean, false) as cur
              from jsonb_array_elements(coalesce(r->'positions', '[]')) with ordinality e(p, ord)) x
        where cid is not null) y
      where latest
    $$;
  `);
}

/**
 * Nothing to undo: the definitions above are those 20261121000400_search leaves in its final form,
 * and that migration's own down drops them.
 */
export async function down(): Promise<void> {}
