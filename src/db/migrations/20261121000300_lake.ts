import type { Knex } from 'knex';

/**
 * The data lake. Each profile is stored whole as the contract's record (`record`, served as is: one
 * indexed query per lookup), next to the few columns that identify it or that later queries filter
 * and join on. `record` is `json`, not `jsonb`: it keeps the record's text exactly (the contract's
 * field order, compact), so a lookup returns it without a conversion; queries use the columns. Those columns are derived from `record` by the writer (repositories/lake.ts), never
 * set independently, so the two cannot drift apart.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Contract dates are year/month integers where 0 means unknown; a month-precision date or null.
    create function lake_date(y integer, m integer) returns date language sql immutable parallel safe as $$
      select case when y between 1 and 9999 then make_date(y, least(greatest(coalesce(m, 1), 1), 12), 1) end
    $$;
    -- Company IDs are numeric strings in the contract; anything else (or out of range) is null.
    create function lake_bigint(t text) returns bigint language sql immutable parallel safe as $$
      select case when t ~ '^[0-9]{1,18}$' then t::bigint end
    $$;

    create table companies (
      id uuid primary key,
      company_id bigint not null unique,        -- GET /company?company_id=, employee endpoints
      username text not null unique,            -- GET /company?username= and ?network_url= (lower-case slug)
      name text not null,
      industries text[] not null,
      staff_count integer,
      hq_country_code text,
      hq_city text,
      founded_year integer,
      fetched_at timestamptz not null,
      record json not null
    );

    create table persons (
      id uuid primary key,
      username text not null unique,            -- GET /person?username= and ?network_url= (lower-case slug)
      network_id text,
      network_urn text,
      full_name text not null,
      current_title text,
      current_company text,
      current_company_id bigint,
      current_company_industry text,
      seniority text,
      geo_country_code text,
      geo_city text,
      current_started_on date,                  -- start of the current position (job changes, hiring signals)
      fetched_at timestamptz not null,
      record json not null
    );
    -- Kept and indexed so that a withdrawal or a future lookup by them never scans.
    create index persons_network_id on persons (network_id) where network_id is not null;
    create index persons_network_urn on persons (network_urn) where network_urn is not null;
    -- Colleagues, current employees, decision makers, headcount by seniority: one company's staff.
    create index persons_current_company on persons (current_company_id, seniority) where current_company_id is not null;
    -- Job changes and hiring signals: recent starters, newest first.
    create index persons_current_started on persons (current_started_on, current_company_id);

    -- One row per position, so past employees and prior-employer filters use an index.
    create table person_positions (
      person_id uuid not null references persons (id) on delete cascade,
      ordinal smallint not null,                -- 0 = newest, as in record.positions
      company_id bigint,
      company_name text,
      title text,
      is_current boolean not null,
      started_on date,
      ended_on date,
      primary key (person_id, ordinal)
    );
    -- Past employees of a company (is_current = false), and current ones by start date.
    create index person_positions_company on person_positions (company_id, is_current, started_on) where company_id is not null;

    -- One row per education, so alumni of a school use an index.
    create table person_educations (
      person_id uuid not null references persons (id) on delete cascade,
      ordinal smallint not null,
      school_name text not null,
      primary key (person_id, ordinal)
    );
    create index person_educations_school on person_educations (lower(school_name));

    -- Records are 2-10 KB: lz4 compresses and decompresses several times faster than the default
    -- pglz (bulk imports and every lookup pay for it), where the server was built with it.
    do $$ begin
      if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
        alter table persons alter column record set compression lz4;
        alter table companies alter column record set compression lz4;
      end if;
    end $$;

    -- Privacy withdrawals: one-way hashes of every identifier of a withdrawn record, nothing else.
    create table suppressions (
      digest text primary key,                  -- hex SHA-256 of "<kind>:<identifier type>:<normalized value>"
      kind text not null check (kind in ('person', 'company')),
      suppressed_at timestamptz not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table if exists suppressions;
    drop table if exists person_educations;
    drop table if exists person_positions;
    drop table if exists persons;
    drop table if exists companies;
    drop function if exists lake_bigint(text);
    drop function if exists lake_date(integer, integer);
  `);
}
