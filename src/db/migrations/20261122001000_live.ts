import type { Knex } from 'knex';

/**
 * The live half (issue 11): the refresh queue, the change log, idempotency keys of realtime calls,
 * and the simulator's saved clock.
 *
 * Refresh queue. One narrow row per lake record (person_refresh, company_refresh), removed with the
 * record (on delete cascade). A worker claims due rows with `FOR UPDATE SKIP LOCKED` and writes a
 * lease (token + expiry) on them in the same statement, so concurrent workers never claim the same
 * record, and a worker that dies leaves leases that simply expire. The lease lives on this row and
 * not on persons, so claiming does not rewrite a wide, heavily indexed row.
 *   checked_at  last time the record was verified (= fetched_at after a refresh) or found missing
 *               at the source; the queue order, oldest first.
 *   watchers    number of monitors watching the subject (issue 13 fills it): watched records have
 *               a lane of their own with a shorter minimum age.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table person_refresh (
      person_id uuid primary key references persons (id) on delete cascade,
      checked_at timestamptz not null,
      lease_token uuid,
      lease_until timestamptz,
      watchers integer not null default 0 check (watchers >= 0)
    );
    -- The refresh's claim: oldest checked_at first.
    create index person_refresh_due on person_refresh (checked_at);
    -- The watched lane: the few watched records, oldest first.
    create index person_refresh_watched on person_refresh (checked_at) where watchers > 0;
    insert into person_refresh (person_id, checked_at) select id, fetched_at from persons;

    create table company_refresh (
      company_id uuid primary key references companies (id) on delete cascade,
      checked_at timestamptz not null,
      lease_token uuid,
      lease_until timestamptz,
      watchers integer not null default 0 check (watchers >= 0)
    );
    create index company_refresh_due on company_refresh (checked_at);
    create index company_refresh_watched on company_refresh (checked_at) where watchers > 0;
    insert into company_refresh (company_id, checked_at) select id, fetched_at from companies;

    -- Durable log of detected changes (refresh, realtime write-back, import), the source of
    -- monitor events. subject_id and diff are erased (redacted_at set) when the subject is withdrawn.
    create table change_log (
      id bigserial primary key,
      kind text not null check (kind in ('person', 'company')),
      subject_id uuid,
      event text not null,
      diff jsonb,
      origin text not null check (origin in ('refresh', 'realtime', 'import')),
      detected_at timestamptz not null default now(),
      redacted_at timestamptz
    );
    -- A subject's changes (withdrawal redaction, monitors).
    create index change_log_subject on change_log (subject_id, id) where subject_id is not null;

    -- Realtime Idempotency-Key: the stored answer of a call, replayed for 24 hours.
    create table idempotency_keys (
      workspace_id uuid not null references workspaces (id) on delete cascade,
      key text not null,
      request_hash text not null,
      state text not null check (state in ('pending', 'done')),
      response text,
      created_at timestamptz not null default now(),
      primary key (workspace_id, key)
    );
    -- Expiry sweep.
    create index idempotency_keys_created on idempotency_keys (created_at);

    -- The live-source simulator's saved state (world and simulated clock) across restarts.
    create table simulator_state (
      name text primary key,
      state jsonb not null,
      updated_at timestamptz not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table if exists simulator_state;
    drop table if exists idempotency_keys;
    drop table if exists change_log;
    drop table if exists company_refresh;
    drop table if exists person_refresh;
  `);
}
