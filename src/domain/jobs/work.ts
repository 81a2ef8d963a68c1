/**
 * The work of a list job (issue 34, point 6), one chunk at a time; src/jobs/listJobWorker.ts claims
 * and drives. Each row is resolved by its identifier when it has one (profile URL, slug, id:
 * likelihood 1, as GET /person), else by a match (domain/match, the same engine and bar as POST
 * /person/match): the match's bulk path takes both. Read from the lake only: a job never calls the
 * live source, so it never meters realtime. A withdrawn person is never matched (the match answers
 * as if the lake never had them).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import * as repo from '../../db/repositories/listJobs';
import { bulkMatchPeople, type BulkMatchItem } from '../match/bulk';
import type { PersonMatchRequest } from '../match/person';
import { rowQuery, type ColumnMapping } from './columns';

/** Match queries sent to the match's bulk path at once (its own bound). */
const MATCH_BATCH = 100;
/** A chunk claimed this many times without a commit (each crash counts) fails its job. */
export const MAX_CHUNK_ATTEMPTS = 5;
/** The longest value a row may give a field (longer ones fail the row, not the match). */
const MAX_VALUE = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The match request of a row, or why it has none. */
export function rowRequest(values: readonly string[], mapping: ColumnMapping): { query: PersonMatchRequest | null; problem: string | null } {
  const q = rowQuery(values, mapping);
  const long = Object.entries(q).find(([, v]) => v.length > MAX_VALUE);
  if (long) return { query: null, problem: `${long[0]} longer than ${MAX_VALUE} characters` };
  if (q.id !== undefined && !UUID.test(q.id)) return { query: null, problem: 'id is not a UUID' };
  if (!Object.keys(q).length) return { query: null, problem: 'empty row' };
  return { query: q as PersonMatchRequest, problem: null };
}

/** The evidence's summary of a result row: "name exact, company close, location partial". */
export function evidenceSummary(item: BulkMatchItem): string | null {
  if (!item.match) return null;
  return item.match.evidence.map((e) => `${e.field} ${e.level}`).join(', ');
}

function resultOf(rowNo: number, item: BulkMatchItem): repo.RowResult {
  if (item.status === 'matched' && item.text) {
    const id = (JSON.parse(item.text) as { id: string }).id;
    return { row_no: rowNo, outcome: 'matched', likelihood: item.likelihood, evidence: evidenceSummary(item), record_id: id, record: item.text, reason: null };
  }
  if (item.status === 'unmatched') return { row_no: rowNo, outcome: 'unmatched', likelihood: null, evidence: null, record_id: null, record: null, reason: 'NO_MATCH' };
  return { row_no: rowNo, outcome: 'failed', likelihood: null, evidence: null, record_id: null, record: null, reason: `${item.code}: ${item.error ?? ''}`.slice(0, 300) };
}

const failed = (rowNo: number, reason: string): repo.RowResult => ({
  row_no: rowNo,
  outcome: 'failed',
  likelihood: null,
  evidence: null,
  record_id: null,
  record: null,
  reason,
});

/** The results of one claimed chunk's rows (reads only). */
export async function resolveChunk(db: Knex, chunk: repo.ClaimedChunk): Promise<repo.RowResult[]> {
  const rows = await repo.readChunkRows(db, chunk.job_id, chunk.first_row, chunk.last_row);
  const results: repo.RowResult[] = [];
  const queries: { rowNo: number; query: PersonMatchRequest }[] = [];
  for (const r of rows) {
    if (r.problem) {
      results.push(failed(r.row_no, r.problem));
      continue;
    }
    const { query, problem } = rowRequest(r.input as string[], chunk.mapping as ColumnMapping);
    if (!query) results.push(failed(r.row_no, problem!));
    else queries.push({ rowNo: r.row_no, query });
  }
  for (let i = 0; i < queries.length; i += MATCH_BATCH) {
    const slice = queries.slice(i, i + MATCH_BATCH);
    const outcome = await bulkMatchPeople(db, slice.map((q) => q.query), chunk.min_likelihood);
    outcome.results.forEach((item, k) => results.push(resultOf(slice[k]!.rowNo, item)));
  }
  return results.sort((a, b) => a.row_no - b.row_no);
}

/** The event of a finished job, written in the transaction that finished it. */
async function jobFinished(trx: Knex.Transaction, job: repo.FinishedJob): Promise<void> {
  const id = randomUUID();
  const event = job.status === 'completed' ? 'job.completed' : 'job.failed';
  const body = JSON.stringify({ id, type: event, created_at: new Date().toISOString(), data: { job_id: job.id, status: job.status } });
  await repo.recordJobEvent(trx, { id, workspace_id: job.workspace_id, job_id: job.id, event, body });
}

/** Resolves and commits a chunk (LeaseLost when another worker took it over). */
export async function workChunk(db: Knex, chunk: repo.ClaimedChunk, token: string): Promise<number> {
  const key = { job_id: chunk.job_id, chunk_no: chunk.chunk_no, token };
  if (chunk.attempts > MAX_CHUNK_ATTEMPTS) {
    const rows = await repo.readChunkRows(db, chunk.job_id, chunk.first_row, chunk.last_row);
    await repo.failJob(
      db,
      key,
      rows.map((r) => failed(r.row_no, 'could not be processed')),
      { code: 'JOB_CHUNK_FAILED', message: `Rows ${chunk.first_row}-${chunk.last_row} failed ${MAX_CHUNK_ATTEMPTS} times; the job stopped.` },
      jobFinished,
    );
    return rows.length;
  }
  const results = await resolveChunk(db, chunk);
  await repo.commitChunk(db, key, results, jobFinished);
  return results.length;
}

export const claimChunks = repo.claimChunks;
export const releaseChunks = repo.releaseChunks;
export const deleteExpiredJobs = repo.deleteExpiredJobs;
export { LeaseLost } from '../../db/repositories/listJobs';
