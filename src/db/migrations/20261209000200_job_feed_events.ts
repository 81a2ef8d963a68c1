import type { Knex } from 'knex';

/**
 * A list job's completion becomes a feed event (issue 34, point 5): `job.completed` / `job.failed`
 * rows of `event_feed`, written in the transaction that finishes the job and numbered by the same
 * sequencer as the monitors' events (one feed, gapless, in order). Until now they went to a side
 * table, `list_job_events`, that nothing listed.
 *   monitor_id   now null for a job's event (a job has no monitor);
 *   job_id       the job of a job event, null for a monitor's; exactly one of the two is set
 *                (event_feed_owner). No foreign key, as for monitors: a deleted job's events stay
 *                as tombstones (body null) so `after=` one of them still resumes.
 * The side table's rows are moved into the feed (in their order; the sequencer numbers them) and
 * the table is dropped. One DDL statement per call.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table event_feed alter column monitor_id drop not null');
  await knex.raw('alter table event_feed add column job_id uuid');
  await knex.raw('alter table event_feed add constraint event_feed_owner check (num_nonnulls(monitor_id, job_id) = 1)');
  // Deleting a job: its events become tombstones.
  await knex.raw('create index event_feed_job on event_feed (job_id) where job_id is not null');
  await knex.raw(`
    insert into event_feed (id, workspace_id, job_id, event, body, created_at)
    select id, workspace_id, job_id, event, body, created_at from list_job_events order by created_at, id`);
  await knex.raw('drop table if exists list_job_events');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create table if not exists list_job_events (
      id uuid primary key,
      workspace_id uuid not null references workspaces(id) on delete cascade,
      job_id uuid not null,
      event text not null,
      body text not null,
      created_at timestamptz not null default now()
    )`);
  await knex.raw('create index if not exists list_job_events_workspace on list_job_events (workspace_id, created_at)');
  await knex.raw(`
    insert into list_job_events (id, workspace_id, job_id, event, body, created_at)
    select id, workspace_id, job_id, event, body, created_at from event_feed where job_id is not null and body is not null`);
  await knex.raw('delete from event_feed where job_id is not null');
  await knex.raw('drop index if exists event_feed_job');
  await knex.raw('alter table event_feed drop constraint if exists event_feed_owner');
  await knex.raw('alter table event_feed drop column if exists job_id');
  await knex.raw('alter table event_feed alter column monitor_id set not null');
}
