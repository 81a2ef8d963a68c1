/**
 * List jobs (issue 34): submit (upload.ts), follow, list, cancel, delete; the job's API shape with
 * its rate and time left. The work itself is work.ts, driven by src/jobs/listJobWorker.ts.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { tombstoneJobEvents } from '../../db/repositories/eventFeed';
import * as repo from '../../db/repositories/listJobs';
import { notFound } from '../errors';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';
import { fieldOfHeader, type JobField } from './columns';

export type ListJob = components['schemas']['ListJob'];

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Rows per second since the job started (to its end, or now), and the seconds left at that rate. */
export function progressOf(row: Pick<repo.JobRow, 'status' | 'rows_read' | 'rows_done' | 'started_at' | 'finished_at'>, now = new Date()): {
  rate: number | null;
  eta: number | null;
} {
  if (!row.started_at || row.rows_done === 0) return { rate: null, eta: null };
  const seconds = ((row.finished_at ?? now).getTime() - row.started_at.getTime()) / 1000;
  if (seconds <= 0) return { rate: null, eta: null };
  const rate = Math.round((row.rows_done / seconds) * 10) / 10;
  const eta = row.status === 'running' || row.status === 'queued' ? Math.ceil((row.rows_read - row.rows_done) / (row.rows_done / seconds)) : row.status === 'completed' ? 0 : null;
  return { rate, eta };
}

export function toJob(row: repo.JobRow): ListJob {
  const { rate, eta } = progressOf(row);
  const fieldAt = new Map<number, JobField>(Object.entries(row.mapping).map(([f, i]) => [i, f as JobField]));
  return {
    id: row.id,
    status: row.status as ListJob['status'],
    kind: 'person',
    format: row.format,
    min_likelihood: row.min_likelihood,
    webhook_url: row.webhook_url,
    columns: row.columns.map((name, i) => ({ name, field: fieldAt.get(i) ?? (row.format === 'csv' ? null : fieldOfHeader(name)) ?? null })),
    rows_read: row.rows_read,
    rows_done: row.rows_done,
    matched: row.matched,
    unmatched: row.unmatched,
    failed: row.failed,
    rows_per_second: rate,
    eta_seconds: eta,
    error: row.error_code ? { code: row.error_code, message: row.error ?? '' } : null,
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    expires_at: row.expires_at.toISOString(),
  };
}

const noSuchJob = () => notFound('No job with this id in this workspace (it may have expired or been deleted).');

export async function getJob(db: Knex, workspaceId: string, id: string): Promise<ListJob> {
  const row = await repo.findJob(db, workspaceId, id.toLowerCase());
  if (!row) throw noSuchJob();
  return toJob(row);
}

/** The job's stored row, or 404 (the results download reads its settings). */
export async function ownJob(db: Knex, workspaceId: string, id: string): Promise<repo.JobRow> {
  const row = await repo.findJob(db, workspaceId, id.toLowerCase());
  if (!row) throw noSuchJob();
  return row;
}

export async function listJobs(db: Knex, workspaceId: string, req: PageRequest): Promise<ListBody<ListJob>> {
  const paging = pageOf(req, 'listJobs', {});
  return listed(paging, async (page) => {
    const result = await repo.listJobsOf(db, workspaceId, page);
    return { ...result, rows: result.rows.map(toJob) };
  });
}

/** Cancels a queued or running job (a finished one is answered as it is): work in flight stops within a chunk. */
export async function cancelJob(db: Knex, workspaceId: string, id: string): Promise<ListJob> {
  const row = await repo.cancelJob(db, workspaceId, id.toLowerCase());
  if (!row) throw noSuchJob();
  return toJob(row);
}

/**
 * Deletes the job, its stored upload rows and results. The job is marked deleted first, in one short
 * transaction with its feed events becoming tombstones (listed no more; `after=` one of them still
 * resumes), as a deleted monitor's: from then on it is a 404 and no worker claims it (a running job
 * is cancelled by the mark). Its rows then go in batches (purgeDeletedJob): a small job is gone
 * before the answer; what a large one has left after a few seconds the jobs' sweep removes.
 */
export async function deleteJob(db: Knex, workspaceId: string, id: string): Promise<void> {
  const jobId = id.toLowerCase();
  const deleted = await db.transaction(async (trx) => {
    if (!(await repo.deleteJob(trx, workspaceId, jobId))) return false;
    await tombstoneJobEvents(trx, [jobId]);
    return true;
  });
  if (!deleted) throw noSuchJob();
  await purgeDeletedJob(db, jobId, INLINE_PURGE_MS);
}

/** How long DELETE /jobs/{id} spends removing rows before leaving the rest to the sweep. */
const INLINE_PURGE_MS = 2_000;

/**
 * Removes a deleted job's rows batch by batch, then the job, for at most `budgetMs`: whether it is
 * gone. Each batch is its own short statement, so a million-row job never needs one statement
 * longer than the statement timeout.
 */
export async function purgeDeletedJob(db: Knex, jobId: string, budgetMs: number): Promise<boolean> {
  const until = Date.now() + budgetMs;
  do {
    if (await repo.purgeDeletedJobStep(db, jobId)) return true;
  } while (Date.now() < until);
  return false;
}

export type JobDelivery = components['schemas']['JobDelivery'];

/**
 * GET /jobs/{id}/deliveries: the job's completion webhook with its attempts, as a monitor's
 * deliveries are shown (domain/monitors); 404 for a job not of this workspace.
 */
export async function listJobDeliveries(db: Knex, workspaceId: string, id: string): Promise<JobDelivery[]> {
  const job = await ownJob(db, workspaceId, id);
  const rows = await repo.jobDeliveries(db, job.id);
  return rows.map((d) => ({
    id: d.id,
    event: d.event as JobDelivery['event'],
    created_at: d.created_at.toISOString(),
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === 'pending' ? d.next_attempt_at.toISOString() : null,
  }));
}
