/**
 * The webhook delivery worker: claims due deliveries from PostgreSQL (FOR UPDATE SKIP LOCKED and a
 * lease), attempts each, and records the outcome fenced by the lease: each step is a call into
 * domain/webhooks/deliveries.ts (claim, send, judge, record, release), which alone calls the
 * repositories. Run inside `enrich serve` (WEBHOOK_DELIVERY_IN_PROCESS, the default) and by `enrich
 * worker`; any number of workers share one database.
 *
 * At least once: a delivery is marked succeeded only after the receiver's 2xx, so a worker killed
 * between the receiver getting the body and the success being recorded leaves the row leased; the
 * lease expires (WEBHOOK_LEASE_SECONDS) and any worker sends it again, same webhook-id.
 *
 * Isolation: at most WEBHOOK_CONCURRENCY attempts in flight, at most WEBHOOK_PER_DESTINATION of
 * them to one host:port (a claim takes no more of a destination than its room), each bounded by the
 * attempt timeout, so one slow receiver holds a few slots for at most 15 s and never the others.
 *
 * An attempt never outlives its lease: its deadline is the attempt timeout or what is left of the
 * lease (counted from before the claim was sent) less LEASE_MARGIN_MS for recording the outcome,
 * whichever comes first. Otherwise a lease shorter than a hanging receiver's answer expired
 * mid-attempt, another claim sent the event again, and the first attempt's outcome was refused by
 * the fence: copy after copy, no attempt ever counted, the delivery never `failed` (issue 20).
 * config.ts also refuses WEBHOOK_LEASE_SECONDS at or below WEBHOOK_TIMEOUT_MS.
 *
 * stop() (SIGTERM) claims nothing more and lets the attempts in flight finish (each within the
 * timeout); what it had claimed but not started is released at once.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Knex } from 'knex';
import type { Config, DeliveryConfig } from '../config';
import { createKnex } from '../db/knex';
import type { Metrics } from '../observability/metrics';
import { inSpan, markSpanFailed } from '../observability/tracing';
import type { Logger } from '../logger';
import { WebhookClient, type AttemptResult } from '../domain/webhooks/client';
import {
  claimDeliveries,
  deliveryBacklog,
  judgeAttempt,
  recordFailure,
  recordSuccesses,
  releaseDeliveries,
  sendAttempt,
  type AttemptSettings,
  type AttemptState,
  type ClaimedDelivery,
  type SuccessRecord,
} from '../domain/webhooks/deliveries';
import { serverKeysOf, type ServerKeys } from '../domain/webhooks/secrets';
import { systemResolver, type ResolveHost, type SsrfPolicy } from '../domain/webhooks/ssrf';
import { Nap } from './nap';

export interface DeliveryWorkerDeps {
  db: Knex;
  keys: ServerKeys;
  config: DeliveryConfig;
  ssrf: SsrfPolicy;
  logger: Logger;
  resolveHost?: ResolveHost;
  /** Extra trusted CA certificates (PEM); default: WEBHOOK_CA_FILE's. */
  ca?: string;
  metrics?: Metrics;
}

/** The shortest interval between two claims while attempts are in flight. */
const CLAIM_GATHER_MS = 10;
/** Time kept at the end of a lease to record the attempt's outcome while the lease still holds. */
export const LEASE_MARGIN_MS = 500;
/** The backlog gauge is read again at most this often (one statement over the pending rows). */
const BACKLOG_EVERY_MS = 1_000;
/** How long 2xx answers are gathered before they are recorded in one statement. */
const SUCCESS_GATHER_MS = 5;

export interface DeliveryTotals {
  attempts: number;
  succeeded: number;
  retried: number;
  failed: number;
  lost: number;
}

export class DeliveryWorker {
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly nap = new Nap();
  /** Attempts not finished (sending, or waiting for their outcome to be recorded). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Requests under way (their answer not in yet), in all and per destination: the caps. */
  private sending = 0;
  private readonly perDestination = new Map<string, number>();
  /** 2xx waiting to be recorded together (one statement for all of them). */
  private successes: { record: SuccessRecord; done: (recorded: boolean) => void; fail: (err: unknown) => void }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly client: WebhookClient;
  private readonly settings: AttemptSettings;
  readonly totals: DeliveryTotals = { attempts: 0, succeeded: 0, retried: 0, failed: 0, lost: 0 };

  constructor(private readonly deps: DeliveryWorkerDeps) {
    const { config } = deps;
    this.client = new WebhookClient({
      policy: deps.ssrf,
      resolveHost: deps.resolveHost ?? systemResolver,
      timeoutMs: config.timeoutMs,
      connectionsPerDestination: config.perDestination,
      ca: deps.ca ?? (config.caFile ? fs.readFileSync(config.caFile, 'utf8') : undefined),
    });
    this.settings = { schedule: config.schedule, retryAfterCapSeconds: config.retryAfterCapSeconds, deactivateAfterSeconds: config.deactivateAfterSeconds };
  }

  /** A 2xx to record: gathered for a few milliseconds, then recorded with the others in one statement. */
  private recordSuccess(record: SuccessRecord): Promise<boolean> {
    return new Promise<boolean>((done, fail) => {
      this.successes.push({ record, done, fail });
      this.flushTimer ??= setTimeout(() => void this.flushSuccesses(), SUCCESS_GATHER_MS);
    });
  }

  private async flushSuccesses(): Promise<void> {
    this.flushTimer = undefined;
    const batch = this.successes;
    this.successes = [];
    if (!batch.length) return;
    try {
      const recorded = await recordSuccesses(this.deps.db, batch.map((b) => b.record));
      for (const b of batch) b.done(recorded.has(b.record.id));
    } catch (err) {
      for (const b of batch) b.fail(err);
    }
  }

  start(): void {
    this.running ??= this.loop().catch((err) => this.deps.logger.error({ err }, 'delivery worker stopped on an unexpected error'));
  }

  /** The backlog gauge; a database that does not answer leaves the last figures (the claim reports it). */
  private async updateBacklog(metrics: Metrics): Promise<void> {
    try {
      const backlog = await deliveryBacklog(this.deps.db);
      for (const [state, n] of Object.entries(backlog)) metrics.webhookBacklog.set({ state }, n);
    } catch (err) {
      this.deps.logger.warn({ err }, 'delivery worker: the backlog gauge could not be read');
    }
  }

  /** Claims nothing more; the attempts in flight finish (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.nap.wake();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
    await this.client.close();
  }

  private async loop(): Promise<void> {
    const { config, logger, db } = this.deps;
    logger.info(
      { concurrency: config.concurrency, per_destination: config.perDestination, lease_seconds: config.leaseSeconds, schedule_seconds: config.schedule },
      'delivery worker started',
    );
    let backoffMs = 0;
    let lastClaim = 0;
    let lastBacklog = 0;
    while (!this.stopping) {
      if (this.deps.metrics && Date.now() - lastBacklog >= BACKLOG_EVERY_MS) {
        lastBacklog = Date.now();
        await this.updateBacklog(this.deps.metrics);
      }
      // Requests under way are capped by the concurrency; outcomes still being recorded by twice it.
      const free = Math.min(config.concurrency - this.sending, 2 * config.concurrency - this.inFlight.size);
      if (free <= 0) {
        await this.nap.sleep(config.pollMs);
        continue;
      }
      // Woken by a finished attempt while others are in flight: gather a few more completions
      // first, so a busy worker claims in batches instead of once per attempt.
      const sinceClaim = Date.now() - lastClaim;
      if (this.inFlight.size > 0 && sinceClaim < CLAIM_GATHER_MS) await this.nap.sleep(CLAIM_GATHER_MS - sinceClaim);
      lastClaim = Date.now();
      // The lease runs from the claim's now() in PostgreSQL, which is after this instant.
      const leaseEnd = lastClaim + config.leaseSeconds * 1000 - LEASE_MARGIN_MS;
      const token = randomUUID();
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDeliveries(db, {
          token,
          limit: free,
          leaseSeconds: config.leaseSeconds,
          perDestination: config.perDestination,
          inFlight: Object.fromEntries(this.perDestination),
        });
        backoffMs = 0;
      } catch (err) {
        backoffMs = Math.min(Math.max(backoffMs * 2, 500), 30_000);
        logger.error({ err, retry_in_ms: backoffMs }, 'delivery worker: claiming failed; retrying');
        await this.nap.sleep(backoffMs);
        continue;
      }
      // The claim respects each destination's room; this is the guard should two claims overlap.
      const over: string[] = [];
      for (const d of claimed) {
        const n = this.perDestination.get(d.destination) ?? 0;
        // A claim that took most of the lease (a slow database) is given back rather than attempted.
        if (this.stopping || n >= config.perDestination || leaseEnd - Date.now() <= 0) {
          over.push(d.id);
          continue;
        }
        this.perDestination.set(d.destination, n + 1);
        this.sending++;
        this.run(token, d, leaseEnd);
      }
      if (over.length) await releaseDeliveries(db, token, over).catch((err) => logger.warn({ err }, 'delivery worker: release failed (the leases expire)'));
      if (claimed.length - over.length === 0) await this.nap.sleep(config.pollMs);
    }
    logger.info({ totals: this.totals }, 'delivery worker stopped');
  }

  /**
   * One attempt, step by step: send; judge the answer; record it. A 2xx frees the destination's
   * slot as soon as it is in (`release`), before it is recorded; a failure frees it only once
   * recorded (run's finally), so a 410's deactivation precedes the next claim.
   */
  private async attempt(
    token: string,
    d: ClaimedDelivery,
    release: () => void,
    timeoutMs: number,
  ): Promise<{ result: AttemptResult; outcome: AttemptState; recorded: boolean }> {
    // A trace of its own per attempt (nothing when tracing is off): the send (undici's client span
    // carries `traceparent` to the receiver) and the recording of its outcome.
    const attributes = { 'enrich.delivery.id': d.id, 'enrich.monitor.id': d.monitor_id, 'enrich.delivery.attempt': d.attempts_made + 1, 'enrich.delivery.manual': d.manual };
    return inSpan('webhook.delivery', attributes, async (span) => {
      const report = await this.attemptSteps(token, d, release, timeoutMs);
      span?.setAttributes({ 'enrich.delivery.outcome': report.outcome, 'enrich.delivery.recorded': report.recorded });
      if (report.outcome !== 'succeeded') markSpanFailed(span, 'delivery attempt failed');
      return report;
    }, { root: true });
  }

  private async attemptSteps(
    token: string,
    d: ClaimedDelivery,
    release: () => void,
    timeoutMs: number,
  ): Promise<{ result: AttemptResult; outcome: AttemptState; recorded: boolean }> {
    const sent = await sendAttempt(this.client, this.deps.keys, d, timeoutMs);
    const judged = judgeAttempt(this.settings, d, sent.result);
    if (judged.outcome.state === 'succeeded') {
      release();
      const recorded = await this.recordSuccess({ id: d.id, token, attempt: sent.attempt, reactivate: d.manual });
      return { result: sent.result, outcome: 'succeeded', recorded };
    }
    const failure = await recordFailure(this.deps.db, this.settings, token, d, sent, judged);
    if (failure.deactivated) this.deps.logger.warn({ monitor_id: d.monitor_id, reason: failure.deactivated }, 'monitor deactivated (active: false)');
    return { result: sent.result, outcome: judged.outcome.state, recorded: failure.recorded };
  }

  private run(token: string, d: ClaimedDelivery, leaseEnd: number): void {
    // The destination's slot is free as soon as the answer is in; the row stays leased until its
    // outcome is recorded, so no other claim can take it meanwhile.
    let answered = false;
    const release = () => {
      if (answered) return;
      answered = true;
      this.sending--;
      const n = (this.perDestination.get(d.destination) ?? 1) - 1;
      if (n <= 0) this.perDestination.delete(d.destination);
      else this.perDestination.set(d.destination, n);
      this.nap.wake();
    };
    const timeoutMs = Math.max(1, Math.min(this.deps.config.timeoutMs, leaseEnd - Date.now()));
    const done = this.attempt(token, d, release, timeoutMs)
      .then((report) => {
        this.totals.attempts++;
        const outcome = !report.recorded ? 'lost' : report.outcome === 'pending' ? 'retry' : report.outcome;
        if (outcome === 'lost') this.totals.lost++;
        else if (outcome === 'succeeded') this.totals.succeeded++;
        else if (outcome === 'retry') this.totals.retried++;
        else this.totals.failed++;
        this.deps.metrics?.webhookAttempts.inc({ outcome });
        this.deps.metrics?.webhookLatency.observe(report.result.latencyMs / 1000);
        if (report.outcome !== 'succeeded') {
          this.deps.logger.debug({ delivery_id: d.id, monitor_id: d.monitor_id, status: report.result.statusCode, error: report.result.error, outcome: report.outcome }, 'webhook attempt failed');
        }
      })
      .catch((err) => this.deps.logger.error({ err, delivery_id: d.id }, 'webhook attempt could not be recorded; the lease expires and it is retried'))
      .finally(() => {
        this.inFlight.delete(done);
        release();
        this.nap.wake();
      });
    this.inFlight.add(done);
  }
}

/**
 * A worker on its own bounded pool (every statement and connection wait has a timeout), with the
 * server key and SSRF policy of the configuration. stop() also closes the pool.
 */
export function createDeliveryWorker(
  config: Config,
  opts: { databaseUrl: string; logger: Logger; keys?: ServerKeys; resolveHost?: ResolveHost; metrics?: Metrics },
): DeliveryWorker & { stop(): Promise<void> } {
  const d = config.webhooks.delivery;
  const db = createKnex(opts.databaseUrl, 8, { statementTimeoutMs: d.dbTimeoutMs, acquireTimeoutMs: d.dbTimeoutMs });
  if (config.webhooks.allowLoopback) {
    opts.logger.warn('WEBHOOKS_ALLOW_LOOPBACK is on: webhooks may be delivered to loopback receivers. Development only; never in production.');
  }
  const worker = new DeliveryWorker({
    db,
    keys: opts.keys ?? serverKeysOf(config),
    config: d,
    ssrf: { allowLoopback: config.webhooks.allowLoopback },
    logger: opts.logger,
    resolveHost: opts.resolveHost,
    metrics: opts.metrics,
  });
  const stop = worker.stop.bind(worker);
  worker.stop = async () => {
    await stop();
    await db.destroy();
  };
  return worker;
}
