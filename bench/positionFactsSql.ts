/**
 * The position facts two ways, as comparable text, over a record `r` and `lake_position_facts(r) f`:
 * OLD from the rule functions one by one, NEW from the one-pass function the writer uses
 * (migration 20261203000100). bench:position-facts times them; positionFacts.test.ts checks they agree.
 */
export const OLD_FACTS = `row(lake_previous_position(r), coalesce(lake_changed_employer(r), false),
  (select coalesce(array_agg(x order by x), '{}') from unnest(lake_latest_past_ordinals(r)) x),
  (select lake_date((p->>'startYear')::int, (p->>'startMonth')::int) from jsonb_array_elements(r->'positions') p
   where (p->>'isCurrent')::boolean limit 1))::text`;
export const NEW_FACTS = `row(f.previous, f.changed_employer, (select coalesce(array_agg(x order by x), '{}') from unnest(f.past_ordinals) x),
  f.current_started_on)::text`;
