/**
 * Webhook deliveries: enqueueing `monitor.test` on request, one attempt and what its answer means,
 * the delivery log and redelivery. The events of changes are enqueued, and withdrawn, by the
 * lake's write side (domain/lake/write/outbox.ts); the worker loop that drives attempts is
 * src/jobs/deliveryWorker.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import * as repo from '../../db/repositories/deliveries';
import { insertFeedEvents } from '../../db/repositories/eventFeed';
import { deactivateMonitor, findMonitor, lockMonitorSubject, markMonitorFailing } from '../../db/repositories/monitors';
import { AppError, dataSubjectBlocked, notFound } from '../errors';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';
import type { AttemptResult, WebhookClient } from './client';
import { attemptsFor, retryAfterSeconds, retryDelaySeconds } from './schedule';
import type { ServerKeys } from './secrets';
import { destinationOf, payload, TEST_EVENT } from './payload';
import { webhookHeaders } from './signing';
import { monitorSubject } from './subject';

export type MonitorDelivery = components['schemas']['MonitorDelivery'];

function toDelivery(row: repo.DeliveryRow): MonitorDelivery {
  return {
    id: row.id,
    event: row.event,
    created_at: row.created_at.toISOString(),
    state: row.state,
    attempts: row.attempts.map((a) => ({ attempted_at: a.attempted_at, status_code: a.status_code, error: a.error, latency_ms: a.latency_ms })),
    next_attempt_at: row.state === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  };
}

const monitorNotFound = () => notFound('No monitor with this id in the workspace.');

async function ownMonitor(db: Knex, workspaceId: string, monitorId: string) {
  const monitor = await findMonitor(db, workspaceId, monitorId.toLowerCase());
  if (!monitor) throw monitorNotFound();
  return monitor;
}

export async function listDeliveries(db: Knex, workspaceId: string, monitorId: string, req: PageRequest): Promise<ListBody<MonitorDelivery>> {
  const monitor = await ownMonitor(db, workspaceId, monitorId);
  const paging = pageOf(req, 'listMonitorDeliveries', { id: monitor.id });
  return listed(paging, async (page) => {
    const result = await repo.listForMonitor(db, monitor.id, page);
    return { ...result, rows: result.rows.map(toDelivery) };
  });
}

/** POST /monitors/{id}/test: a `monitor.test` delivery through the real path, due now. */
export async function enqueueTest(db: Knex, workspaceId: string, monitorId: string): Promise<MonitorDelivery> {
  const monitor = await ownMonitor(db, workspaceId, monitorId);
  // A test payload names its subject; a withdrawn one is named nowhere again.
  if (monitor.subject_slug === null) throw dataSubjectBlocked();
  const id = randomUUID();
  const body = payload(id, TEST_EVENT, monitor.id, new Date(), {}, await monitorSubject(db, monitor.type, monitor.subject_slug));
  // The delivery and the feed's event commit together, under the monitor's row lock: a withdrawal
  // either went first (451 here) or blanks them after they commit (monitors.ts withdrawSubjectMonitors).
  await db.transaction(async (trx) => {
    const locked = await lockMonitorSubject(trx, monitor.id);
    if (!locked) throw monitorNotFound();
    if (locked.subject_slug === null) throw dataSubjectBlocked();
    await insertFeedEvents(trx, [{ id, workspace_id: workspaceId, monitor_id: monitor.id, event: TEST_EVENT, subject_id: null, body }]);
    await repo.insertDeliveries(trx, [
      { id, monitor_id: monitor.id, event: TEST_EVENT, change_id: null, subject_id: null, destination: destinationOf(monitor.webhook_url), body, manual: true },
    ]);
  });
  return toDelivery((await repo.findDelivery(db, monitor.id, id))!);
}

/** POST /monitors/{id}/deliveries/{delivery_id}/redeliver: a failed delivery, one new attempt now. */
export async function redeliver(db: Knex, workspaceId: string, monitorId: string, deliveryId: string): Promise<MonitorDelivery> {
  const monitor = await ownMonitor(db, workspaceId, monitorId);
  const id = deliveryId.toLowerCase();
  const requeued = await repo.requeueFailed(db, monitor.id, id);
  if (requeued) return toDelivery(requeued);
  const existing = await repo.findDelivery(db, monitor.id, id);
  if (!existing) throw notFound('No delivery with this id on this monitor.');
  throw new AppError('DELIVERY_NOT_FAILED', `Only a failed delivery can be redelivered; this one is ${existing.state}.`);
}

export interface AttemptSettings {
  schedule: readonly number[];
  retryAfterCapSeconds: number;
  deactivateAfterSeconds: number;
}

/*
 * The delivery worker (src/jobs/deliveryWorker.ts) drives attempts with the steps below, in this
 * order: claim, send, judge, record (a success or a failure), or release. Each step is one call
 * down into the repositories; nothing here calls back into the worker.
 */

export type ClaimedDelivery = repo.ClaimedDelivery;
export type SuccessRecord = repo.SuccessRecord;
export type AttemptState = repo.AttemptOutcome['state'];

/**
 * Due deliveries, leased under `token`: at most `limit`, and per destination no more than its room
 * (`perDestination` minus this worker's `inFlight` there). The rules of what is due are the claim's
 * (repositories/deliveries.ts claimDue).
 */
export function claimDeliveries(db: Knex, opts: Parameters<typeof repo.claimDue>[1]): Promise<ClaimedDelivery[]> {
  return repo.claimDue(db, opts);
}

/** Pending deliveries by what they wait for (due, scheduled, leased, paused): the backlog gauge. */
export function deliveryBacklog(db: Knex): Promise<repo.DeliveryBacklog> {
  return repo.deliveryBacklog(db);
}

/** Claimed deliveries given back without an attempt (shutdown, over a destination's cap): due again at once. */
export function releaseDeliveries(db: Knex, token: string, ids: readonly string[]): Promise<number> {
  return repo.releaseLeases(db, token, ids);
}

export interface SentAttempt {
  result: AttemptResult;
  /** The attempt as the delivery log keeps it. */
  attempt: repo.StoredAttempt;
}

/**
 * One POST of a claimed delivery, signed with every secret that signs now. Never throws.
 * `timeoutMs`: this attempt's deadline, when shorter than the client's (what is left of the lease).
 */
export async function sendAttempt(client: WebhookClient, keys: ServerKeys, d: ClaimedDelivery, timeoutMs?: number): Promise<SentAttempt> {
  const attemptedAt = new Date();
  let result: AttemptResult;
  try {
    const secrets = d.secrets.map((c) => keys.decrypt(c));
    const headers = webhookHeaders(secrets, d.id, Math.floor(attemptedAt.getTime() / 1000), d.body);
    result = await client.post(d.webhook_url, d.body, { ...headers }, timeoutMs);
  } catch (err) {
    // Nothing is sent unsigned: a secret the server key cannot decrypt (a server key rotated away
    // without WEBHOOK_SECRET_KEYS_PREVIOUS) fails the attempt, which follows the schedule.
    result = { statusCode: null, error: `not sent: ${err instanceof Error ? err.message : String(err)}`, latencyMs: 0, blocked: false };
  }
  const attempt: repo.StoredAttempt = {
    attempted_at: attemptedAt.toISOString(),
    status_code: result.statusCode,
    error: result.error,
    latency_ms: result.latencyMs,
  };
  return { result, attempt };
}

export interface Judgement {
  outcome: repo.AttemptOutcome;
  /** The receiver answered 410 Gone: the monitor is deactivated. */
  gone: boolean;
}

/**
 * What an answer means: 2xx succeeded; 410 failed, and the monitor is deactivated; the last attempt
 * of the schedule failed; anything else retried after the schedule's delay (or, for 429 and 503,
 * after Retry-After up to its cap). Pure.
 */
export function judgeAttempt(settings: AttemptSettings, d: ClaimedDelivery, result: AttemptResult): Judgement {
  const status = result.statusCode;
  const made = d.attempts_made + 1;
  if (status !== null && status >= 200 && status < 300) return { outcome: { state: 'succeeded' }, gone: false };
  if (status === 410) return { outcome: { state: 'failed' }, gone: true };
  if (made >= (d.max_attempts ?? attemptsFor(settings.schedule))) return { outcome: { state: 'failed' }, gone: false };
  const after = status === 429 || status === 503 ? retryAfterSeconds(result.retryAfter, settings.retryAfterCapSeconds) : undefined;
  return { outcome: { state: 'pending', retryInSeconds: after ?? retryDelaySeconds(settings.schedule, made) }, gone: false };
}

/**
 * 2xx answers, many at once (the worker gathers them): each recorded if its lease still holds, its
 * monitor no longer failing (and reactivated by a test or a redelivery). Returns the ids recorded.
 */
export function recordSuccesses(db: Knex, records: readonly SuccessRecord[]): Promise<Set<string>> {
  return repo.recordSuccesses(db, records);
}

export interface FailureRecorded {
  /** False when the lease was lost meanwhile: nothing was recorded. */
  recorded: boolean;
  /** Why the monitor was deactivated by this failure, if it was. */
  deactivated?: string;
}

/**
 * A failed attempt and its consequence, in one transaction fenced by the lease token: the attempt
 * and the retry or failure; the monitor failing since its first failure after the last success,
 * and deactivated (its queued deliveries cancelled) on a 410 or once failing longer than
 * `deactivateAfterSeconds`.
 */
export async function recordFailure(
  db: Knex,
  settings: AttemptSettings,
  token: string,
  d: ClaimedDelivery,
  sent: SentAttempt,
  judged: Judgement,
): Promise<FailureRecorded> {
  const outcome = judged.outcome;
  if (outcome.state === 'succeeded') throw new Error('recordFailure: a success is recorded by recordSuccesses');
  return db.transaction(async (trx) => {
    if (!(await repo.recordAttempt(trx, d.id, token, sent.attempt, outcome))) return { recorded: false };
    let deactivated: string | undefined;
    if (judged.gone) deactivated = 'the receiver answered 410 Gone';
    else if (await markMonitorFailing(trx, d.monitor_id, settings.deactivateAfterSeconds)) {
      deactivated = `every delivery failed for ${Math.round(settings.deactivateAfterSeconds / 3600)} h`;
    }
    if (deactivated) {
      await deactivateMonitor(trx, d.monitor_id);
      await repo.cancelPending(trx, d.monitor_id);
    }
    return { recorded: true, deactivated };
  });
}
