import type { Knex } from 'knex';

/**
 * The position facts the lake writer derives from a person's work history, in one pass over the
 * positions (the writer's upsert, db/repositories/personRecords.ts), instead of one SQL function
 * per rule, each walking the positions again with a query of its own (lake_previous_position,
 * lake_latest_past_ordinals with two window functions and a sort, the current start date).
 *
 * The rules stay where they live (20261122000100_lake_rules, 20261202000400_import_rule_speed) and
 * are used as they are by the relationship lists; this function restates them for the writer, with
 * the same result for every record (checked side by side on the bench world: bench/positionFacts.ts):
 * - previous: the first position, in stored order (newest first), that is not current
 *   (lake_previous_position);
 * - changed_employer: lake_employer_changed(current, previous), false when either is missing
 *   (coalesce(lake_changed_employer(r), false)), the current position being the first one when it
 *   is current (lake_current_position);
 * - past_ordinals: per company ID, the ordinal of its first non-current position, only for companies
 *   without a current position there (lake_latest_past_ordinals; a set: its order is not used);
 * - current_started_on: the start (lake_date) of the first position whose isCurrent is true.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create type lake_position_facts as (previous jsonb, changed_employer boolean, past_ordinals int[], current_started_on date);
    create function lake_position_facts(r jsonb) returns lake_position_facts language plpgsql immutable parallel safe as $$
    declare
      ps jsonb := coalesce(r->'positions', '[]');
      n int := jsonb_array_length(ps);
      p jsonb;
      cur boolean;
      cid bigint;
      current_cids bigint[] := '{}';
      seen_cids bigint[] := '{}';
      facts lake_position_facts;
      previous_found boolean := false;
      started_found boolean := false;
    begin
      facts.past_ordinals := '{}';
      for i in 0 .. n - 1 loop
        p := ps->i;
        cur := coalesce((p->>'isCurrent')::boolean, false);
        if cur then
          cid := lake_bigint(p->>'companyId');
          if cid is not null then current_cids := current_cids || cid; end if;
          if not started_found then
            facts.current_started_on := lake_date((p->>'startYear')::int, (p->>'startMonth')::int);
            started_found := true;
          end if;
        elsif not previous_found then
          facts.previous := p;
          previous_found := true;
        end if;
      end loop;
      for i in 0 .. n - 1 loop
        p := ps->i;
        cid := lake_bigint(p->>'companyId');
        continue when cid is null or coalesce((p->>'isCurrent')::boolean, false);
        if not (cid = any(current_cids) or cid = any(seen_cids)) then facts.past_ordinals := facts.past_ordinals || i; end if;
        seen_cids := seen_cids || cid;
      end loop;
      facts.changed_employer := coalesce(lake_employer_changed(
        case when coalesce((ps->0->>'isCurrent')::boolean, false) then ps->0 end,
        case when previous_found then facts.previous end), false);
      return facts;
    end
    $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop function if exists lake_position_facts(jsonb); drop type if exists lake_position_facts;');
}
