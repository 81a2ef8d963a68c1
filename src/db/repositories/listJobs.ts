/**
 * List jobs (migration 20261209000100_list_jobs): the job rows, their input rows and results, the
 * chunk queue (claimed with FOR UPDATE SKIP LOCKED and a lease, as the refresh queue and the
 * webhook deliveries are) and the completion webhooks. A job's events are the event feed's
 * (db/repositories/eventFeed.ts). Plain values in, plain rows out.
 *
 * Exactly once across crashes: a chunk's results, its `done` mark and the job's counters are one
 * transaction, fenced by the chunk's lease token (`commitChunk`); a worker killed before it commits
 * leaves nothing, and the chunk is claimed again when its lease expires. Results are keyed by
 * (job_id, row_no), so a chunk done twice would write the same rows, never more.
 */
import type { Knex } from 'knex';
import { listenOnChannel, type AuthChangeSubscription, type ChannelHandlers, type ChannelTiming } from './authChanges';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type OrderTerm, type Page } from './pages';

/**
 * The channel that wakes the list job workers (src/jobs/listJobWorker.ts) when a job is queued; sent
 * in the transaction that queues it, so delivered at its commit and never for one rolled back.
 */
export const JOBS_CHANNEL = 'enrich_list_job_queued';

/** Every list job worker's wake-up: listens on JOBS_CHANNEL on a connection of its own (reconnecting forever). */
export function listenForQueuedJobs(databaseUrl: string, handlers: ChannelHandlers, timing?: Partial<ChannelTiming>): AuthChangeSubscription {
  return listenOnChannel(databaseUrl, JOBS_CHANNEL, 'enrich-jobs-listener', handlers, timing);
}

export type JobStatus = 'uploading' | 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobRow {
  id: string;
  workspace_id: string;
  status: JobStatus;
  kind: string;
  format: 'csv' | 'ndjson';
  min_likelihood: number;
  columns: string[];
  mapping: Record<string, number>;
  webhook_url: string | null;
  secret_ciphertext: string | null;
  upload_bytes: string | number;
  rows_read: number;
  rows_done: number;
  matched: number;
  unmatched: number;
  failed: number;
  error_code: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date;
}

export interface NewJob {
  id: string;
  workspace_id: string;
  format: 'csv' | 'ndjson';
  min_likelihood: number;
  columns: string[];
  mapping: Record<string, number>;
  webhook_url: string | null;
  secret_ciphertext: string | null;
  retention_days: number;
}

/** A new job, `uploading` (never listed) until its rows are stored. */
export async function insertUploadingJob(db: Knex, job: NewJob): Promise<void> {
  await db.raw(
    `insert into list_jobs (id, workspace_id, status, format, min_likelihood, columns, mapping, webhook_url, secret_ciphertext, expires_at)
     values (?, ?, 'uploading', ?, ?, ?::jsonb, ?::jsonb, ?, ?, now() + make_interval(days => ?))`,
    [
      job.id,
      job.workspace_id,
      job.format,
      job.min_likelihood,
      JSON.stringify(job.columns),
      JSON.stringify(job.mapping),
      job.webhook_url,
      job.secret_ciphertext,
      job.retention_days,
    ],
  );
}

export interface InputRow {
  row_no: number;
  /** The row as read: an array of cells (CSV) or the object (NDJSON), as JSON text. */
  input: string;
  problem: string | null;
}

/** One statement per batch. */
export async function insertInputRows(db: Knex, jobId: string, rows: readonly InputRow[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `insert into list_job_rows (job_id, row_no, input, problem)
     select ?::uuid, row_no, input::jsonb, problem from unnest(?::int[], ?::text[], ?::text[]) as t(row_no, input, problem)`,
    [jobId, rows.map((r) => r.row_no), rows.map((r) => r.input), rows.map((r) => r.problem)] as unknown as Knex.RawBinding[],
  );
}

/** The upload is stored: its chunks of `chunkRows` rows are queued and the job with them. */
export async function queueUploadedJob(db: Knex, jobId: string, rowsRead: number, uploadBytes: number, chunkRows: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into list_job_chunks (job_id, chunk_no, first_row, last_row)
       select ?::uuid, n, n * ?::int + 1, least((n + 1) * ?::int, ?::int) from generate_series(0, ceil(?::int / ?::numeric)::int - 1) n`,
      [jobId, chunkRows, chunkRows, rowsRead, rowsRead, chunkRows],
    );
    await trx.raw(`update list_jobs set status = 'queued', rows_read = ?, upload_bytes = ? where id = ?`, [rowsRead, uploadBytes, jobId]);
    await trx.raw(`select pg_notify('${JOBS_CHANNEL}', '')`);
  });
}

/**
 * A job a workspace sees: stored whole (not still uploading) and not deleted. A deleted job's rows
 * are removed in batches after it is marked (purgeDeletedJob), and it is answered as missing from
 * the moment it is marked.
 */
function visible<Q extends Knex.QueryBuilder>(q: Q): Q {
  return q.whereNot('status', 'uploading').whereNull('deleted_at') as Q;
}

/** Marks a job deleted (a refused or broken-off upload): its rows go by purgeDeletedJob. */
export async function markJobDeleted(db: Knex, jobId: string): Promise<void> {
  await db.raw(`update list_jobs set deleted_at = now() where id = ? and deleted_at is null`, [jobId]);
}

/** A job of this workspace (not one still uploading, nor deleted), or undefined. */
export async function findJob(db: Knex, workspaceId: string, jobId: string): Promise<JobRow | undefined> {
  return visible(db('list_jobs').where({ id: jobId, workspace_id: workspaceId })).first();
}

/**
 * Marks a workspace's job deleted: whether there was one. A queued or running job becomes
 * cancelled too, so no worker claims its chunks again (the claim takes only queued or running).
 */
export async function deleteJob(db: Knex | Knex.Transaction, workspaceId: string, jobId: string): Promise<boolean> {
  const { rowCount } = await db.raw(
    `update list_jobs set deleted_at = now(),
       status = case when status in ('queued', 'running') then 'cancelled' else status end
     where id = ? and workspace_id = ? and status <> 'uploading' and deleted_at is null`,
    [jobId, workspaceId],
  );
  return (rowCount ?? 0) > 0;
}

/** Rows one purge statement removes: short enough for the statement timeout on a busy server. */
const PURGE_BATCH_ROWS = 2_000;

/**
 * One step of removing a deleted job: a batch of its stored rows, or, once none is left, the job
 * row itself (its chunks, events and deliveries by cascade: a few hundred rows at most). Answers
 * whether the job is gone.
 */
export async function purgeDeletedJobStep(db: Knex, jobId: string): Promise<boolean> {
  const { rowCount } = await db.raw(
    `delete from list_job_rows where job_id = ? and row_no in (
       select row_no from list_job_rows where job_id = ? order by row_no limit ?)`,
    [jobId, jobId, PURGE_BATCH_ROWS],
  );
  if ((rowCount ?? 0) > 0) return false;
  await db.raw(`delete from list_jobs where id = ? and deleted_at is not null`, [jobId]);
  return true;
}

/** Deleted jobs whose rows are still being removed (the sweep finishes them). */
export async function deletedJobIds(db: Knex, limit = 10): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `select id from list_jobs where deleted_at is not null order by deleted_at limit ?`,
    [limit],
  );
  return rows.map((r) => r.id);
}

/** Cancels a queued or running job; answers the job as it is after (cancelled or already finished). */
export async function cancelJob(db: Knex, workspaceId: string, jobId: string): Promise<JobRow | undefined> {
  await db.raw(
    `update list_jobs set status = 'cancelled', finished_at = now()
     where id = ? and workspace_id = ? and status in ('queued', 'running')`,
    [jobId, workspaceId],
  );
  return findJob(db, workspaceId, jobId);
}

/** The jobs list's order: newest first, ties by id (index list_jobs_workspace). */
const JOB_ORDER: OrderTerm[] = [term('created_at', 'desc', 'timestamptz'), term('id', 'asc', 'uuid')];

export async function listJobsOf(db: Knex, workspaceId: string, page: Page): Promise<ListResult<JobRow>> {
  const base = () => visible(db('list_jobs').where('workspace_id', workspaceId));
  const [rows, count] = await Promise.all([
    pageQuery(db, base().select('*'), JOB_ORDER, page),
    boundedCount(db, base().select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows as Record<string, unknown>[], JOB_ORDER, page);
  return { rows: split.rows as unknown as JobRow[], next: split.next, ...totalOf(count) };
}

export interface ClaimedChunk {
  job_id: string;
  chunk_no: number;
  first_row: number;
  last_row: number;
  workspace_id: string;
  min_likelihood: number;
  columns: string[];
  mapping: Record<string, number>;
  format: 'csv' | 'ndjson';
  attempts: number;
}

/**
 * Claims up to `limit` chunks whose lease is free or expired, one per job per claim, the jobs taken
 * round robin (the one claimed from longest ago first), so one million-row job never holds every
 * worker while another job waits. A queued job is started only while its workspace has fewer than
 * `perWorkspace` running jobs: claims are serialised by a transaction-scoped advisory lock (a claim
 * is one short statement), so that count cannot be raced past.
 */
export async function claimChunks(
  db: Knex,
  opts: { token: string; limit: number; leaseSeconds: number; perWorkspace: number },
): Promise<ClaimedChunk[]> {
  if (opts.limit <= 0) return [];
  // No job queued or running (an idle worker's usual poll): one probe of the partial index
  // list_jobs_active instead of a locked four-statement transaction. A job queued after the probe
  // is claimed by the next poll, as one committed after a claim's snapshot always was.
  const { rows: active } = await db.raw<{ rows: { active: boolean }[] }>(`select exists (select 1 from list_jobs where status in ('queued', 'running')) as active`);
  if (active[0]?.active !== true) return [];
  return db.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtext('list_job_claim'))`);
    const { rows } = await trx.raw<{ rows: ClaimedChunk[] }>(
      `with active as (
         select j.id, j.status, j.workspace_id, j.last_claimed_at, j.created_at,
           -- A queued job's place in its workspace's queue (1 = next to start).
           row_number() over (partition by j.workspace_id, j.status order by j.created_at, j.id) as place
         from list_jobs j where j.status in ('queued', 'running')),
       running as (select workspace_id, count(*) as n from active where status = 'running' group by workspace_id),
       jobs as (
         select a.id from active a left join running r on r.workspace_id = a.workspace_id
         -- Running jobs, and the queued ones that fit under the bound with those before them.
         where a.status = 'running' or coalesce(r.n, 0) + a.place <= ?
         order by a.last_claimed_at nulls first, a.created_at
         limit ?),
       due as (
         select c.job_id, c.chunk_no from jobs cross join lateral (
           select c.job_id, c.chunk_no from list_job_chunks c
           where c.job_id = jobs.id and not c.done and (c.lease_until is null or c.lease_until < now())
           order by c.chunk_no limit 1 for update of c skip locked) c),
       claimed as (
         update list_job_chunks c set lease_token = ?, lease_until = now() + make_interval(secs => ?), attempts = c.attempts + 1
         from due where c.job_id = due.job_id and c.chunk_no = due.chunk_no
         returning c.job_id, c.chunk_no, c.first_row, c.last_row, c.attempts),
       started as (
         update list_jobs j set status = 'running', started_at = coalesce(j.started_at, now()), last_claimed_at = clock_timestamp()
         -- Not a job cancelled (or deleted) while this claim ran: a cancel stays a cancel, and its
         -- chunk is not handed out (its lease simply expires).
         from claimed where j.id = claimed.job_id and j.status in ('queued', 'running')
         returning j.id, j.workspace_id, j.min_likelihood, j.columns, j.mapping, j.format)
       select c.*, s.workspace_id, s.min_likelihood, s.columns, s.mapping, s.format
       from claimed c join started s on s.id = c.job_id`,
      [opts.perWorkspace, opts.limit, opts.token, opts.leaseSeconds],
    );
    return rows;
  });
}

/** Gives chunks back (shutdown): claimable again at once. */
export async function releaseChunks(db: Knex, token: string): Promise<void> {
  await db('list_job_chunks').where('lease_token', token).andWhere('done', false).update({ lease_until: null, lease_token: null });
}

export interface StoredInput {
  row_no: number;
  input: unknown;
  problem: string | null;
}

export async function readChunkRows(db: Knex, jobId: string, first: number, last: number): Promise<StoredInput[]> {
  return db('list_job_rows').select('row_no', 'input', 'problem').where('job_id', jobId).whereBetween('row_no', [first, last]).orderBy('row_no');
}

export interface RowResult {
  row_no: number;
  outcome: 'matched' | 'unmatched' | 'failed';
  likelihood: number | null;
  evidence: string | null;
  record_id: string | null;
  record: string | null;
  reason: string | null;
}

export class LeaseLost extends Error {}

export interface FinishedJob {
  id: string;
  workspace_id: string;
  status: 'completed' | 'failed';
  webhook_url: string | null;
  rows_read: number;
  matched: number;
  unmatched: number;
  failed: number;
}

const FINISHED = 'id, workspace_id, status, webhook_url, rows_read, matched, unmatched, failed';

/**
 * One chunk's results, its `done` mark and the job's counters, in one transaction fenced by the
 * lease (LeaseLost: another worker took the chunk over; nothing is written). A cancelled job keeps
 * the results of a chunk that was in flight. The job is `completed` by the commit of its last
 * chunk; `onFinished` runs in the same transaction (the completion event commits with it).
 */
export async function commitChunk(
  db: Knex,
  chunk: { job_id: string; chunk_no: number; token: string },
  results: readonly RowResult[],
  onFinished: (trx: Knex.Transaction, job: FinishedJob) => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    const marked = await trx.raw<{ rowCount: number }>(
      `update list_job_chunks set done = true, lease_token = null, lease_until = null
       where job_id = ? and chunk_no = ? and lease_token = ? and not done`,
      [chunk.job_id, chunk.chunk_no, chunk.token],
    );
    if (!marked.rowCount) throw new LeaseLost();
    await writeResults(trx, chunk.job_id, results);
    const count = (o: RowResult['outcome']) => results.filter((r) => r.outcome === o).length;
    await trx.raw(
      `update list_jobs set rows_done = rows_done + ?, matched = matched + ?, unmatched = unmatched + ?, failed = failed + ? where id = ?`,
      [results.length, count('matched'), count('unmatched'), count('failed'), chunk.job_id],
    );
    await finishIfDone(trx, chunk.job_id, onFinished);
  });
}

/**
 * A chunk's results in one statement. The records (a few KB of JSON each, most of a chunk's bytes)
 * travel as ONE text parameter, one record a line, split by `string_to_table ... with ordinality`
 * into the row order of the other (short) arrays: as an array literal every `"` of the JSON had
 * to be escaped by node-pg and unescaped by PostgreSQL, which was most of a chunk's commit time
 * (bench/jobsProfile.ts). A record is served JSON text (jsonb's output, with fetched_at spliced
 * in), which never holds a raw line end; a chunk where one would is sent the old way.
 */
async function writeResults(trx: Knex.Transaction, jobId: string, results: readonly RowResult[]): Promise<void> {
  if (!results.length) return;
  // Each line is `r` + the record, or `-` for none: never an empty line (string_to_table of ''
  // would be no line at all, not one empty line).
  const records = results.map((r) => (r.record === null ? '-' : `r${r.record}`));
  const oneLineEach = records.every((r) => !r.includes('\n'));
  const recordSource = oneLineEach
    ? `(select case when left(line, 1) = 'r' then substr(line, 2) end as record, n from string_to_table(?::text, E'\\n') with ordinality as s(line, n)) rec`
    : `(select case when left(line, 1) = 'r' then substr(line, 2) end as record, n from unnest(?::text[]) with ordinality as s(line, n)) rec`;
  await trx.raw(
    `update list_job_rows r set outcome = t.outcome, likelihood = t.likelihood, evidence = t.evidence,
       record_id = t.record_id, record = rec.record, reason = t.reason
     from unnest(?::int[], ?::text[], ?::float8[], ?::text[], ?::uuid[], ?::text[])
       with ordinality as t(row_no, outcome, likelihood, evidence, record_id, reason, n)
     join ${recordSource} on rec.n = t.n
     where r.job_id = ? and r.row_no = t.row_no`,
    [
      results.map((r) => r.row_no),
      results.map((r) => r.outcome),
      results.map((r) => r.likelihood),
      results.map((r) => r.evidence),
      results.map((r) => r.record_id),
      results.map((r) => r.reason),
      oneLineEach ? records.join('\n') : records,
      jobId,
    ] as unknown as Knex.RawBinding[],
  );
}

async function finishIfDone(trx: Knex.Transaction, jobId: string, onFinished: (trx: Knex.Transaction, job: FinishedJob) => Promise<void>): Promise<void> {
  const { rows } = await trx.raw<{ rows: FinishedJob[] }>(
    `update list_jobs set status = 'completed', finished_at = now()
     where id = ? and status = 'running' and not exists (select 1 from list_job_chunks c where c.job_id = ? and not c.done)
     returning ${FINISHED}`,
    [jobId, jobId],
  );
  if (rows[0]) await onFinished(trx, rows[0]);
}

/**
 * A chunk that failed `attempts` times (each claim counts; a worker crashing on it counts too):
 * its rows are written `failed` with `reason`, and the job is `failed` with `code`.
 */
export async function failJob(
  db: Knex,
  chunk: { job_id: string; chunk_no: number; token: string },
  results: readonly RowResult[],
  error: { code: string; message: string },
  onFinished: (trx: Knex.Transaction, job: FinishedJob) => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    const marked = await trx.raw<{ rowCount: number }>(
      `update list_job_chunks set done = true, lease_token = null, lease_until = null where job_id = ? and chunk_no = ? and lease_token = ? and not done`,
      [chunk.job_id, chunk.chunk_no, chunk.token],
    );
    if (!marked.rowCount) throw new LeaseLost();
    await writeResults(trx, chunk.job_id, results);
    await trx.raw(`update list_jobs set rows_done = rows_done + ?, failed = failed + ? where id = ?`, [results.length, results.length, chunk.job_id]);
    const { rows } = await trx.raw<{ rows: FinishedJob[] }>(
      `update list_jobs set status = 'failed', finished_at = now(), error_code = ?, error = ?
       where id = ? and status = 'running' returning ${FINISHED}`,
      [error.code, error.message, chunk.job_id],
    );
    if (rows[0]) await onFinished(trx, rows[0]);
  });
}

export interface ResultRow {
  row_no: number;
  input: unknown;
  problem: string | null;
  outcome: RowResult['outcome'] | null;
  likelihood: number | null;
  evidence: string | null;
  record_id: string | null;
  record: string | null;
  reason: string | null;
}

/** Up to `limit` rows from `fromRow` on, in order (a keyset on the primary key). */
export async function readResults(db: Knex, jobId: string, fromRow: number, limit: number): Promise<ResultRow[]> {
  return db('list_job_rows')
    .select('row_no', 'input', 'problem', 'outcome', 'likelihood', 'evidence', 'record_id', 'record', 'reason')
    .where('job_id', jobId)
    .andWhere('row_no', '>=', fromRow)
    .orderBy('row_no')
    .limit(limit);
}

/**
 * Withdrawal (domain/lake/suppression.ts): every stored result naming this person becomes
 * `unmatched`, its record, id, likelihood and evidence erased, and the jobs' counters follow.
 */
export async function forgetJobResultsAbout(trx: Knex.Transaction, recordId: string): Promise<number> {
  const { rows } = await trx.raw<{ rows: { n: string }[] }>(
    `with erased as (
       update list_job_rows set outcome = 'unmatched', likelihood = null, evidence = null, record_id = null, record = null,
         reason = 'NO_MATCH'
       where record_id = ? returning job_id),
     counts as (select job_id, count(*)::int as n from erased group by job_id),
     moved as (
       update list_jobs j set matched = j.matched - counts.n, unmatched = j.unmatched + counts.n
       from counts where j.id = counts.job_id returning counts.n)
     select coalesce(sum(n), 0)::text as n from moved`,
    [recordId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Jobs past their retention, and uploads whose server died mid-upload (an hour old): marked
 * deleted (their rows then go by purgeDeletedJobStep); their ids.
 */
export async function deleteExpiredJobs(db: Knex | Knex.Transaction, limit = 10): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `update list_jobs set deleted_at = now() where id in (
       select id from list_jobs
       where deleted_at is null and (expires_at < now() or (status = 'uploading' and created_at < now() - interval '1 hour'))
       limit ?)
     returning id`,
    [limit],
  );
  return rows.map((r) => r.id);
}

/** The completion webhook of a finished job, due now (in the transaction that finished it). */
export async function insertJobDelivery(trx: Knex.Transaction, d: { id: string; job_id: string; body: string }): Promise<void> {
  await trx('list_job_deliveries').insert(d);
}

export interface ClaimedJobDelivery {
  id: string;
  job_id: string;
  body: string;
  webhook_url: string;
  secret_ciphertext: string;
  attempts_made: number;
}

/** Claims due completion webhooks (FOR UPDATE SKIP LOCKED, a lease), oldest due first. */
export async function claimJobDeliveries(db: Knex, opts: { token: string; limit: number; leaseSeconds: number }): Promise<ClaimedJobDelivery[]> {
  const { rows } = await db.raw<{ rows: ClaimedJobDelivery[] }>(
    `with due as (
       select d.id from list_job_deliveries d
       where d.state = 'pending' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
       order by d.next_attempt_at limit ? for update skip locked),
     claimed as (
       update list_job_deliveries d set lease_token = ?, lease_until = now() + make_interval(secs => ?)
       from due where d.id = due.id
       returning d.id, d.job_id, d.body, jsonb_array_length(d.attempts) as attempts_made)
     -- A deleted job's webhook is not sent (its delivery row goes with the job's purge).
     select c.*, j.webhook_url, j.secret_ciphertext from claimed c join list_jobs j on j.id = c.job_id and j.deleted_at is null`,
    [opts.limit, opts.token, opts.leaseSeconds],
  );
  return rows;
}

/** An attempt's outcome, fenced by the lease: succeeded, failed, or due again after `retryInSeconds`. */
export async function recordJobDeliveryAttempt(
  db: Knex,
  token: string,
  id: string,
  attempt: object,
  outcome: { state: 'succeeded' | 'failed' } | { state: 'pending'; retryInSeconds: number },
): Promise<boolean> {
  const { rowCount } = await db.raw<{ rowCount: number }>(
    `update list_job_deliveries set attempts = attempts || ?::jsonb, state = ?,
       next_attempt_at = now() + make_interval(secs => ?), lease_token = null, lease_until = null
     where id = ? and lease_token = ?`,
    [JSON.stringify([attempt]), outcome.state, outcome.state === 'pending' ? outcome.retryInSeconds : 0, id, token],
  );
  return (rowCount ?? 0) > 0;
}

export interface JobDeliveryRow {
  id: string;
  event: string;
  created_at: Date;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: { attempted_at: string; status_code: number | null; error: string | null; latency_ms: number }[];
  next_attempt_at: Date;
}

/** A job's completion webhook deliveries (none or one), newest first (index list_job_deliveries_job). */
export async function jobDeliveries(db: Knex, jobId: string): Promise<JobDeliveryRow[]> {
  const { rows } = await db.raw<{ rows: JobDeliveryRow[] }>(
    `select id, body::jsonb->>'event' as event, created_at, state, attempts, next_attempt_at
     from list_job_deliveries where job_id = ? order by created_at desc, id`,
    [jobId],
  );
  return rows;
}
