import type { Knex } from 'knex';

/**
 * Search and relationship queries (issue 4). Every filter of people and company search, and every
 * relationship list, is served by an index here, so none scans the persons table.
 *
 * The rules that derive the new columns from a record live in SQL functions defined here, used by
 * both the writer (repositories/persons.ts, companies.ts) and the backfill below, so the two
 * cannot disagree.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The position held before the current one: the newest ended position (positions are stored
    -- newest first, current ones first). Null for a first job.
    create function lake_previous_position(r jsonb) returns jsonb language sql immutable parallel safe as $$
      select p from jsonb_array_elements(coalesce(r->'positions', '[]')) with ordinality e(p, ord)
      where not coalesce((p->>'isCurrent')::boolean, false) order by ord limit 1
    $$;
    -- The current (newest) position, or null.
    create function lake_current_position(r jsonb) returns jsonb language sql immutable parallel safe as $$
      select case when coalesce((r->'positions'->0->>'isCurrent')::boolean, false) then r->'positions'->0 end
    $$;
    -- A job change: the current position is at another employer than the previous one (compared by
    -- company ID when both have one, else by name). A new title at the same employer is not one.
    create function lake_changed_employer(r jsonb) returns boolean language sql immutable parallel safe as $$
      select coalesce(case
        when lake_bigint(c->>'companyId') is not null and lake_bigint(p->>'companyId') is not null
          then lake_bigint(c->>'companyId') <> lake_bigint(p->>'companyId')
        else lower(c->>'companyName') is distinct from lower(p->>'companyName') end, false)
      from (select lake_current_position(r) c, lake_previous_position(r) p) x
      where c is not null and p is not null
    $$;
    -- Past employees: per company, the newest ended position (lowest ordinal), only at companies
    -- the person does not work at now. The ordinals (0 = newest) of those positions.
    create function lake_latest_past_ordinals(r jsonb) returns int[] language sql immutable parallel safe as $$
      select coalesce(array_agg(ord - 1), '{}') from (
        select ord, not cur and row_number() over (partition by cid, cur order by ord) = 1
          and not bool_or(cur) over (partition by cid) as latest
        from (select ord, lake_bigint(p->>'companyId') as cid, coalesce((p->>'isCurrent')::boolean, false) as cur
              from jsonb_array_elements(coalesce(r->'positions', '[]')) with ordinality e(p, ord)) x
        where cid is not null) y
      where latest
    $$;
    create function lake_skills(r jsonb) returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(distinct lower(s->>'name')) filter (where s->>'name' <> ''), '{}')
      from jsonb_array_elements(coalesce(r->'skills', '[]')) s
    $$;
    create function lake_company_words(r jsonb) returns tsvector language sql immutable parallel safe as $$
      select setweight(to_tsvector('simple', coalesce(r->>'name', '')), 'A')
        || setweight(to_tsvector('simple', coalesce(r->>'tagline', '') || ' ' || coalesce(r->>'description', '')), 'B')
        || setweight(jsonb_to_tsvector('simple', coalesce(r->'specialities', '[]'), '["string"]'), 'B')
    $$;
    create function lake_lower_array(a text[]) returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(lower(x)), '{}') from unnest(a) x
    $$;

    alter table persons
      add column skills text[] not null default '{}',           -- lower-case skill names (search: skills)
      add column previous_company_id bigint,                    -- employer before the current one
      add column previous_company text,
      add column changed_employer boolean not null default false,
      -- Company staff lists order by band, c-level first; 5 = no band.
      add column seniority_rank smallint generated always as (case seniority
        when 'c-level' then 1 when 'vp' then 2 when 'director' then 3 when 'manager' then 4 else 5 end) stored,
      -- search: title (whole words, any of them)
      add column title_words tsvector generated always as (to_tsvector('simple', coalesce(current_title, ''))) stored,
      -- search: query (name weighs most, then title, then company)
      add column search_words tsvector generated always as (
        setweight(to_tsvector('simple', full_name), 'A')
        || setweight(to_tsvector('simple', coalesce(current_title, '')), 'B')
        || setweight(to_tsvector('simple', coalesce(current_company, '')), 'C')) stored;

    update persons set skills = lake_skills(r), changed_employer = coalesce(lake_changed_employer(r), false),
      previous_company_id = lake_bigint(lake_previous_position(r)->>'companyId'),
      previous_company = lake_previous_position(r)->>'companyName'
    from (select id as rid, record::jsonb as r from persons) src where src.rid = persons.id;

    -- Default order of person lists: most recently verified first.
    create index persons_recent on persons (fetched_at desc, id);
    create index persons_country on persons (geo_country_code, fetched_at desc, id);
    create index persons_city on persons (lower(geo_city));
    create index persons_industry on persons (lower(current_company_industry));
    create index persons_company_name on persons (lower(current_company));
    create index persons_seniority on persons (seniority, fetched_at desc, id) where seniority is not null;
    create index persons_title_words on persons using gin (title_words);
    create index persons_search_words on persons using gin (search_words);
    create index persons_skills on persons using gin (skills);
    -- Colleagues, current employees, decision makers, headcount: one company's staff in list order.
    drop index persons_current_company;
    create index persons_company_staff on persons (current_company_id, seniority_rank, (full_name collate "C"), id)
      where current_company_id is not null;
    -- Hiring signals: a company's recent joiners, newest first.
    drop index persons_current_started;
    create index persons_company_joined on persons (current_company_id, current_started_on desc, id)
      where current_company_id is not null;
    -- Job changes, newest first, and by previous employer.
    create index persons_job_changes on persons (current_started_on desc, id) where changed_employer;
    create index persons_previous_company_id on persons (previous_company_id, current_started_on desc, id) where changed_employer;
    create index persons_previous_company on persons (lower(previous_company)) where changed_employer;
    -- Similar people: same industry, country and band, most recently verified first.
    create index persons_similar on persons (current_company_industry, geo_country_code, seniority, fetched_at desc, id);

    -- Past employees: one row per (person, company) for the newest ended position there, set only
    -- when the person does not work there now.
    alter table person_positions add column latest_past boolean not null default false;
    update person_positions pp set latest_past = true from persons p
    where p.id = pp.person_id and pp.ordinal = any(lake_latest_past_ordinals(p.record::jsonb));
    create index person_positions_past on person_positions (company_id, ended_on desc nulls last, person_id) where latest_past;
    -- search: past_company (by name)
    create index person_positions_past_name on person_positions (lower(company_name)) where not is_current;

    alter table companies
      add column industries_lower text[] not null default '{}',
      add column search_words tsvector;
    update companies set industries_lower = lake_lower_array(industries), search_words = lake_company_words(record::jsonb);
    create index companies_staff on companies (staff_count desc nulls last, id);
    create index companies_name on companies (lower(name));
    create index companies_country on companies (hq_country_code);
    create index companies_city on companies (lower(hq_city));
    create index companies_founded on companies (founded_year);
    create index companies_industries on companies using gin (industries_lower);
    create index companies_search_words on companies using gin (search_words);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index if exists companies_staff, companies_name, companies_country, companies_city, companies_founded,
      companies_industries, companies_search_words;
    alter table companies drop column industries_lower, drop column search_words;
    drop index if exists person_positions_past, person_positions_past_name;
    alter table person_positions drop column latest_past;
    drop index if exists persons_recent, persons_country, persons_city, persons_industry, persons_company_name,
      persons_seniority, persons_title_words, persons_search_words, persons_skills, persons_company_staff,
      persons_company_joined, persons_job_changes, persons_previous_company_id, persons_previous_company, persons_similar;
    alter table persons drop column skills, drop column previous_company_id, drop column previous_company,
      drop column changed_employer, drop column seniority_rank, drop column title_words, drop column search_words;
    create index persons_current_company on persons (current_company_id, seniority) where current_company_id is not null;
    create index persons_current_started on persons (current_started_on, current_company_id);
    drop function if exists lake_lower_array(text[]), lake_latest_past_ordinals(jsonb), lake_company_words(jsonb), lake_skills(jsonb),
      lake_changed_employer(jsonb), lake_current_position(jsonb), lake_previous_position(jsonb);
  `);
}
