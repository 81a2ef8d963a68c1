import type { Knex } from 'knex';

/**
 * List jobs (issue 34): a CSV or NDJSON upload enriched row by row by the workers.
 *   list_jobs        the job: its workspace, state, what the upload held (its header, the column
 *                    mapping), the counters, and the completion webhook (secret encrypted at rest,
 *                    as a monitor's). `uploading` is the state while the request body streams in:
 *                    never listed, deleted when the upload fails, swept if its server died.
 *   list_job_rows    one row per input row, keyed by (job_id, row_no): the values as read, a parse
 *                    problem when the row could not be read, and, once resolved, its outcome. The
 *                    key makes a result write idempotent (a chunk done twice writes the same rows).
 *   list_job_chunks  the work queue: ranges of rows claimed with FOR UPDATE SKIP LOCKED and a lease
 *                    (as refresh and the webhook deliveries are), so any worker on any instance
 *                    takes any chunk, and an expired lease is taken over.
 *   list_job_events  job.completed / job.failed, one per finished job (recordJobEvent in
 *                    db/repositories/listJobs.ts is the one place that writes them).
 *   list_job_deliveries  the signed completion webhook of a job with a webhook_url.
 * Every table is distributed by job (its leading key column) on a Citus layout; they stay local.
 */
const STATEMENTS = [
  `create table list_jobs (
     id uuid primary key,
     workspace_id uuid not null references workspaces(id) on delete cascade,
     status text not null check (status in ('uploading', 'queued', 'running', 'completed', 'failed', 'cancelled')),
     kind text not null default 'person',
     format text not null check (format in ('csv', 'ndjson')),
     min_likelihood double precision not null,
     columns jsonb not null default '[]',
     mapping jsonb not null default '{}',
     webhook_url text,
     secret_ciphertext text,
     upload_bytes bigint not null default 0,
     rows_read integer not null default 0,
     rows_done integer not null default 0,
     matched integer not null default 0,
     unmatched integer not null default 0,
     failed integer not null default 0,
     error_code text,
     error text,
     created_at timestamptz not null default now(),
     started_at timestamptz,
     finished_at timestamptz,
     last_claimed_at timestamptz,
     expires_at timestamptz not null
   )`,
  // listJobs: the workspace's jobs, newest first.
  `create index list_jobs_workspace on list_jobs (workspace_id, created_at desc, id)`,
  // The claim: jobs that may have work (queued or running), oldest first.
  `create index list_jobs_active on list_jobs (created_at) where status in ('queued', 'running')`,
  // The retention sweep.
  `create index list_jobs_expiry on list_jobs (expires_at)`,
  `create table list_job_rows (
     job_id uuid not null references list_jobs(id) on delete cascade,
     row_no integer not null,
     input jsonb not null,
     problem text,
     outcome text check (outcome in ('matched', 'unmatched', 'failed')),
     likelihood double precision,
     evidence text,
     record_id uuid,
     record text,
     reason text,
     primary key (job_id, row_no)
   )`,
  // Withdrawal: the stored results that name a withdrawn person.
  `create index list_job_rows_record on list_job_rows (record_id) where record_id is not null`,
  `create table list_job_chunks (
     job_id uuid not null references list_jobs(id) on delete cascade,
     chunk_no integer not null,
     first_row integer not null,
     last_row integer not null,
     done boolean not null default false,
     attempts integer not null default 0,
     lease_token uuid,
     lease_until timestamptz,
     primary key (job_id, chunk_no)
   )`,
  // The claim: a job's chunks not done yet, in order.
  `create index list_job_chunks_pending on list_job_chunks (job_id, chunk_no) where not done`,
  `create table list_job_events (
     id uuid primary key,
     workspace_id uuid not null references workspaces(id) on delete cascade,
     job_id uuid not null,
     event text not null,
     body text not null,
     created_at timestamptz not null default now()
   )`,
  `create index list_job_events_workspace on list_job_events (workspace_id, created_at)`,
  // The completion webhook of a job submitted with webhook_url: one delivery per finished job,
  // claimed with a lease and retried on the monitors' schedule (domain/webhooks/schedule.ts).
  `create table list_job_deliveries (
     id uuid primary key,
     job_id uuid not null references list_jobs(id) on delete cascade,
     body text not null,
     state text not null default 'pending' check (state in ('pending', 'succeeded', 'failed')),
     attempts jsonb not null default '[]',
     next_attempt_at timestamptz not null default now(),
     lease_token uuid,
     lease_until timestamptz,
     created_at timestamptz not null default now()
   )`,
  `create index list_job_deliveries_due on list_job_deliveries (next_attempt_at) where state = 'pending'`,
];

export async function up(knex: Knex): Promise<void> {
  for (const sql of STATEMENTS) await knex.raw(sql);
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['list_job_deliveries', 'list_job_events', 'list_job_chunks', 'list_job_rows', 'list_jobs']) await knex.raw(`drop table if exists ${t}`);
}
