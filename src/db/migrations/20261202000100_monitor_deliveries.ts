import type { Knex } from 'knex';

/**
 * Webhook deliveries (issue 13): the durable job queue of the delivery worker and the delivery log
 * of GET /monitors/{id}/deliveries, one row per event per monitor.
 *   id               the webhook-id (and the payload id), stable across retries and redeliveries.
 *   body             the exact JSON sent on every attempt (text, so the bytes never change).
 *   subject_id       the lake record the event is about (null for monitor.test and after a
 *                    withdrawal, which cancels the delivery and strips `diff` from the body).
 *   destination      host:port of the webhook URL, for the per-destination concurrency cap.
 *   attempts         [{attempted_at, status_code, error, latency_ms}], oldest first.
 *   max_attempts     attempts allowed in all; null = the retry schedule's (8 by the contract). A
 *                    redelivery sets it to one more than the attempts made.
 *   manual           a test event or a redelivery: attempted even for an inactive monitor, and a
 *                    2xx reactivates the monitor.
 *   lease_*          claimed by a worker with FOR UPDATE SKIP LOCKED; an expired lease (a killed
 *                    worker) makes the row claimable again: at-least-once.
 * Rows go with their monitor (on delete cascade): deleting a monitor cancels its queued retries.
 * monitors.failing_since: the first failed attempt since the last success (5 days -> inactive).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table monitor_deliveries (
      id uuid primary key,
      monitor_id uuid not null references monitors (id) on delete cascade,
      event text not null,
      change_id bigint,
      subject_id uuid,
      destination text not null,
      body text not null,
      state text not null default 'pending' check (state in ('pending', 'succeeded', 'failed', 'cancelled')),
      attempts jsonb not null default '[]'::jsonb,
      max_attempts integer,
      manual boolean not null default false,
      next_attempt_at timestamptz,
      lease_token uuid,
      lease_until timestamptz,
      created_at timestamptz not null default now(),
      completed_at timestamptz
    );
    -- The queue: due pending rows, oldest due first.
    create index monitor_deliveries_due on monitor_deliveries (next_attempt_at) where state = 'pending';
    -- The delivery log of one monitor, newest first.
    create index monitor_deliveries_monitor on monitor_deliveries (monitor_id, created_at desc, id);
    -- Withdrawal: the deliveries about one subject.
    create index monitor_deliveries_subject on monitor_deliveries (subject_id) where subject_id is not null;
    alter table monitors add column failing_since timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists monitor_deliveries; alter table monitors drop column if exists failing_since');
}
