/**
 * The work of a list job (issue 34, point 6), one chunk at a time; src/jobs/listJobWorker.ts claims
 * and drives. Each row is resolved by its identifier when it has one (profile URL, slug, id:
 * likelihood 1, as GET /person), else by a match (domain/match, the same engine and bar as POST
 * /person/match): the match's bulk path takes both. Read from the lake only: a job never calls the
 * live source, so it never meters realtime. A withdrawn person is never matched (the match answers
 * as if the lake never had them). Identifier rows go through the bulk lookup (one round for the
 * chunk), the others through the match's bulk path.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertFeedEvents, tombstoneJobEvents } from '../../db/repositories/eventFeed';
import * as repo from '../../db/repositories/listJobs';
import { purgeDeletedJob } from './jobs';
import { bulkMatchPeople, type BulkMatchItem } from '../match/bulk';
import { bulkEnrichPeople, type BulkItemOutcome } from '../people/bulk';
import type { PersonMatchRequest } from '../match/person';
import type { AttemptResult, WebhookClient } from '../webhooks/client';
import { attemptsFor, retryAfterSeconds, retryDelaySeconds } from '../webhooks/schedule';
import type { ServerKeys } from '../webhooks/secrets';
import { webhookHeaders } from '../webhooks/signing';
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

const LEADING_ID = /^\{"id":\s?"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/i;

/**
 * A served record's id. The lake's records are stored with `id` as their first key, so it is read
 * from the text's start; parsing a few KB of JSON per row only for its id was a third of a chunk's
 * lookup time (bench/jobsProfile.ts). Any other text is parsed.
 */
export function recordIdOf(text: string): string {
  return LEADING_ID.exec(text)?.[1] ?? (JSON.parse(text) as { id: string }).id;
}

function resultOf(rowNo: number, item: BulkMatchItem): repo.RowResult {
  if (item.status === 'matched' && item.text) {
    const id = recordIdOf(item.text);
    return { row_no: rowNo, outcome: 'matched', likelihood: item.likelihood, evidence: evidenceSummary(item), record_id: id, record: item.text, reason: null };
  }
  if (item.status === 'unmatched') return { row_no: rowNo, outcome: 'unmatched', likelihood: null, evidence: null, record_id: null, record: null, reason: 'NO_MATCH' };
  return { row_no: rowNo, outcome: 'failed', likelihood: null, evidence: null, record_id: null, record: null, reason: `${item.code}: ${item.error ?? ''}`.slice(0, 300) };
}

/**
 * An identifier row's result: found (likelihood 1), or NO_MATCH, for an unknown and for a withdrawn
 * person alike (as the match answers: a job's result never says a subject existed), or failed.
 */
function identifierResultOf(rowNo: number, item: BulkItemOutcome): repo.RowResult {
  if (item.status === 200 && item.record) {
    const id = recordIdOf(item.record);
    return { row_no: rowNo, outcome: 'matched', likelihood: 1, evidence: 'identifier exact', record_id: id, record: item.record, reason: null };
  }
  if (item.status === 404 || item.status === 451) return { row_no: rowNo, outcome: 'unmatched', likelihood: null, evidence: null, record_id: null, record: null, reason: 'NO_MATCH' };
  return failed(rowNo, `${item.code}: ${item.error ?? ''}`.slice(0, 300));
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
  // Identifier rows: one round of lookups for all of them (the bulk lookup's path), likelihood 1.
  const byIdentifier = queries.filter((q) => q.query.network_url || q.query.username || q.query.id);
  if (byIdentifier.length) {
    const outcome = await bulkEnrichPeople(
      db,
      byIdentifier.map(({ query: q }) => (q.network_url ? { network_url: q.network_url } : q.username ? { username: q.username } : { id: q.id! })),
    );
    outcome.results.forEach((item, k) => results.push(identifierResultOf(byIdentifier[k]!.rowNo, item)));
  }
  const byMatch = queries.filter((q) => !(q.query.network_url || q.query.username || q.query.id));
  for (let i = 0; i < byMatch.length; i += MATCH_BATCH) {
    const slice = byMatch.slice(i, i + MATCH_BATCH);
    const outcome = await bulkMatchPeople(db, slice.map((q) => q.query), chunk.min_likelihood);
    outcome.results.forEach((item, k) => results.push(resultOf(slice[k]!.rowNo, item)));
  }
  return results.sort((a, b) => a.row_no - b.row_no);
}

/**
 * THE place a job event is written (job.completed, job.failed; the contract's JobFinishedEvent):
 * in the transaction that finished the job, into the workspace's event feed (a row owned by the
 * job, no monitor; numbered by the feed's sequencer with every other event), and as the completion
 * webhook when the job has a webhook_url. The body holds the job's id, status and counts only.
 */
async function jobFinished(trx: Knex.Transaction, job: repo.FinishedJob): Promise<void> {
  const id = randomUUID();
  const event = job.status === 'completed' ? 'job.completed' : 'job.failed';
  const body = JSON.stringify({
    id,
    event,
    job_id: job.id,
    timestamp: String(Math.floor(Date.now() / 1000)),
    job: { status: job.status, rows_read: job.rows_read, matched: job.matched, unmatched: job.unmatched, failed: job.failed },
  });
  await insertFeedEvents(trx, [{ id, workspace_id: job.workspace_id, job_id: job.id, event, subject_id: null, body }]);
  if (job.webhook_url) await repo.insertJobDelivery(trx, { id, job_id: job.id, body });
}

export interface JobDeliverySettings {
  schedule: readonly number[];
  retryAfterCapSeconds: number;
  leaseSeconds: number;
}

/**
 * Sends due completion webhooks: signed (Standard Webhooks, the job's secret), through the
 * SSRF-filtering client of the monitors' deliveries, each outcome recorded fenced by the lease; a
 * failure is retried on the same schedule (429 and 503 after Retry-After, up to its cap) until the
 * schedule's last attempt. At least once, like the monitors' deliveries. Returns how many were tried.
 */
export async function deliverJobWebhooks(
  db: Knex,
  deps: { client: WebhookClient; keys: ServerKeys; settings: JobDeliverySettings; token: string },
): Promise<number> {
  const claimed = await repo.claimJobDeliveries(db, { token: deps.token, limit: 8, leaseSeconds: deps.settings.leaseSeconds });
  await Promise.all(
    claimed.map(async (d) => {
      const attemptedAt = new Date();
      let result: AttemptResult;
      try {
        const headers = webhookHeaders([deps.keys.decrypt(d.secret_ciphertext)], d.id, Math.floor(attemptedAt.getTime() / 1000), d.body);
        result = await deps.client.post(d.webhook_url, d.body, { ...headers });
      } catch (err) {
        result = { statusCode: null, error: `not sent: ${err instanceof Error ? err.message : String(err)}`, latencyMs: 0, blocked: false };
      }
      const status = result.statusCode;
      const made = d.attempts_made + 1;
      const outcome =
        status !== null && status >= 200 && status < 300
          ? ({ state: 'succeeded' } as const)
          : made >= attemptsFor(deps.settings.schedule)
            ? ({ state: 'failed' } as const)
            : ({
                state: 'pending',
                retryInSeconds:
                  (status === 429 || status === 503 ? retryAfterSeconds(result.retryAfter, deps.settings.retryAfterCapSeconds) : undefined) ??
                  retryDelaySeconds(deps.settings.schedule, made),
              } as const);
      const attempt = { attempted_at: attemptedAt.toISOString(), status_code: status, error: result.error, latency_ms: result.latencyMs };
      await repo.recordJobDeliveryAttempt(db, deps.token, d.id, attempt, outcome);
    }),
  );
  return claimed.length;
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
/**
 * The retention sweep: expired jobs are marked deleted and their feed events become tombstones (as
 * DELETE /jobs/{id}); then deleted jobs' rows are removed batch by batch, for at most `budgetMs`
 * (what is left, the next sweep continues). Answers the jobs marked.
 */
export async function deleteExpiredJobs(db: Knex, budgetMs = 5_000): Promise<number> {
  const marked = await db.transaction(async (trx) => {
    const ids = await repo.deleteExpiredJobs(trx);
    await tombstoneJobEvents(trx, ids);
    return ids.length;
  });
  const until = Date.now() + budgetMs;
  for (const jobId of await repo.deletedJobIds(db)) {
    const left = until - Date.now();
    if (left <= 0) break;
    await purgeDeletedJob(db, jobId, left);
  }
  return marked;
}
export { LeaseLost } from '../../db/repositories/listJobs';
