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
import { findMonitor } from '../../db/repositories/monitors';
import { AppError, notFound } from '../errors';
import { listed, pageOf, type ListBody, type PageRequest } from '../paging';
import type { AttemptResult, WebhookClient } from './client';
import { attemptsFor, retryAfterSeconds, retryDelaySeconds } from './schedule';
import type { ServerKeys } from './secrets';
import { destinationOf, payload, TEST_EVENT } from './payload';
import { webhookHeaders } from './signing';
import { monitorSubject } from './subject';
import { dataSubjectBlocked } from '../lake/suppression';

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
  await repo.insertDeliveries(db, [
    {
      id,
      monitor_id: monitor.id,
      event: TEST_EVENT,
      change_id: null,
      subject_id: null,
      destination: destinationOf(monitor.webhook_url),
      body: payload(id, TEST_EVENT, monitor.id, new Date(), {}, await monitorSubject(db, monitor.type, monitor.subject_slug)),
      manual: true,
    },
  ]);
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

export interface AttemptDeps {
  db: Knex;
  client: WebhookClient;
  keys: ServerKeys;
  settings: AttemptSettings;
  /** Told when a monitor is deactivated (logged by the worker). */
  onDeactivated?: (monitorId: string, reason: string) => void;
  /**
   * Told when a 2xx is in, before it is recorded (the worker frees the destination's slot). A
   * failure frees it only once recorded, so a 410's deactivation precedes the next claim.
   */
  onAnswered?: () => void;
  /** Records a 2xx (the worker batches them); default: one statement per success. */
  recordSuccess?: (record: repo.SuccessRecord) => Promise<boolean>;
}

export interface AttemptReport {
  result: AttemptResult;
  outcome: repo.AttemptOutcome['state'];
  /** False when the lease was lost meanwhile: nothing was recorded. */
  recorded: boolean;
}

/**
 * One attempt of a claimed delivery: sign with every secret that signs now, POST, and record the
 * attempt and its consequence in one transaction fenced by the lease token.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  token: string,
  d: repo.ClaimedDelivery,
  /** This attempt's deadline, when shorter than the client's (what is left of the lease). */
  timeoutMs?: number,
): Promise<AttemptReport> {
  const attemptedAt = new Date();
  let result: AttemptResult;
  try {
    const secrets = d.secrets.map((c) => deps.keys.decrypt(c));
    const headers = webhookHeaders(secrets, d.id, Math.floor(attemptedAt.getTime() / 1000), d.body);
    result = await deps.client.post(d.webhook_url, d.body, { ...headers }, timeoutMs);
  } catch (err) {
    // Nothing is sent unsigned: a secret the server key cannot decrypt (a server key rotated away
    // without WEBHOOK_SECRET_KEYS_PREVIOUS) fails the attempt, which follows the schedule.
    result = { statusCode: null, error: `not sent: ${err instanceof Error ? err.message : String(err)}`, latencyMs: 0, blocked: false };
  }
  const { settings } = deps;
  const status = result.statusCode;
  const made = d.attempts_made + 1;
  let outcome: repo.AttemptOutcome;
  let gone = false;
  if (status !== null && status >= 200 && status < 300) outcome = { state: 'succeeded' };
  else if (status === 410) {
    outcome = { state: 'failed' };
    gone = true;
  } else if (made >= (d.max_attempts ?? attemptsFor(settings.schedule))) outcome = { state: 'failed' };
  else {
    const after = status === 429 || status === 503 ? retryAfterSeconds(result.retryAfter, settings.retryAfterCapSeconds) : undefined;
    outcome = { state: 'pending', retryInSeconds: after ?? retryDelaySeconds(settings.schedule, made) };
  }
  const attempt: repo.StoredAttempt = {
    attempted_at: attemptedAt.toISOString(),
    status_code: status,
    error: result.error,
    latency_ms: result.latencyMs,
  };
  if (outcome.state === 'succeeded') {
    deps.onAnswered?.();
    const record = { id: d.id, token, attempt, reactivate: d.manual };
    const recorded = deps.recordSuccess
      ? await deps.recordSuccess(record)
      : (await repo.recordSuccesses(deps.db, [record])).has(d.id);
    return { result, outcome: outcome.state, recorded };
  }
  const failure = outcome;
  let deactivated: string | undefined;
  const recorded = await deps.db.transaction(async (trx) => {
    if (!(await repo.recordAttempt(trx, d.id, token, attempt, failure))) return false;
    if (gone) {
      await repo.deactivateMonitor(trx, d.monitor_id);
      deactivated = 'the receiver answered 410 Gone';
    } else if (await repo.markMonitorFailing(trx, d.monitor_id, settings.deactivateAfterSeconds)) {
      await repo.deactivateMonitor(trx, d.monitor_id);
      deactivated = `every delivery failed for ${Math.round(settings.deactivateAfterSeconds / 3600)} h`;
    }
    return true;
  });
  if (deactivated) deps.onDeactivated?.(d.monitor_id, deactivated);
  return { result, outcome: outcome.state, recorded };
}
