/**
 * The list job worker (issue 34, point 6): claims chunks of rows from PostgreSQL (FOR UPDATE SKIP
 * LOCKED and a lease, as the refresh and delivery workers do), resolves each through
 * domain/jobs/work.ts, and commits its results fenced by the lease. Any number of workers, in any
 * number of processes, share one job's chunks. Runs inside `enrich serve` (JOB_WORKER_IN_PROCESS,
 * the default) and in `enrich worker`.
 *
 * Exactly once across `kill -9`: a chunk's results commit with its `done` mark in one transaction;
 * a worker killed before that leaves the chunk leased, and after JOB_LEASE_SECONDS any worker takes
 * it over. Cancel: a cancelled job's chunks are no longer claimed, so a job stops within one chunk
 * (JOB_CHUNK_ROWS rows) per worker slot. stop() finishes the chunks in hand and claims no more.
 *
 * It also sweeps expired jobs (JOB_RETENTION_DAYS) and uploads a dead server left behind.
 *
 * With `wake` (what `enrich serve` and `enrich worker` run) an idle slot does not poll every
 * JOB_POLL_MS: it listens on the jobs' channel (queueing a job notifies it in the same transaction,
 * db/repositories/listJobs.ts), and otherwise claims every JOB_FALLBACK_POLL_MS (a chunk whose
 * lease ran out, the sweep). A slot that worked a chunk claims again at once, as before. While
 * the listening connection is lost the slots poll every JOB_POLL_MS, and they claim once as soon as
 * it listens again. The completion webhooks' loop keeps its JOB_POLL_MS poll (their retries are
 * due by the clock, not announced).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config, JobsConfig } from '../config';
import { createKnex } from '../db/knex';
import type { Logger } from '../logger';
import fs from 'node:fs';
import { claimChunks, deleteExpiredJobs, deliverJobWebhooks, LeaseLost, releaseChunks, workChunk, type JobDeliverySettings } from '../domain/jobs/work';
import { WebhookClient } from '../domain/webhooks/client';
import { serverKeysOf, type ServerKeys } from '../domain/webhooks/secrets';
import { systemResolver, type ResolveHost } from '../domain/webhooks/ssrf';
import { listenForQueuedJobs } from '../db/repositories/listJobs';
import type { AuthChangeSubscription as ChannelSubscription, ChannelTiming } from '../db/repositories/authChanges';
import { Nap } from './nap';

const SWEEP_EVERY_MS = 60_000;
/** An idle slot's claim while the worker listens for queued jobs (the lease takeovers wait this at most). */
export const JOB_FALLBACK_POLL_MS = 5_000;

export class ListJobWorker {
  private stopping = false;
  private running: Promise<void> | undefined;
  /** One pause per slot, so a stop wakes every slot. */
  private readonly naps: Nap[] = [];
  private readonly token = randomUUID();
  private lastSweep = 0;
  rowsDone = 0;
  private channel: ChannelSubscription | undefined;
  /** Per slot's nap: a notification (or a change of the channel) came since its last claim began. */
  private readonly notified = new Map<Nap, boolean>();

  constructor(
    private readonly deps: {
      db: Knex;
      config: JobsConfig;
      logger: Logger;
      /** The completion webhooks; omitted: none are sent by this worker. */
      webhooks?: { client: WebhookClient; keys: ServerKeys; settings: JobDeliverySettings };
      /** Wake on queued jobs instead of polling every JOB_POLL_MS (see the file's comment). */
      wake?: { databaseUrl: string; fallbackMs?: number; timing?: Partial<ChannelTiming> };
    },
  ) {}

  /** Whether idle slots are woken by notifications now (false: they poll every JOB_POLL_MS). */
  get listening(): boolean {
    return this.channel?.listening ?? false;
  }

  private listen(slots: Nap[]): void {
    const wake = this.deps.wake;
    if (!wake || this.channel || this.stopping) return;
    const poke = () => {
      for (const nap of slots) {
        this.notified.set(nap, true);
        nap.wake();
      }
    };
    const { logger } = this.deps;
    this.channel = listenForQueuedJobs(
      wake.databaseUrl,
      {
        onMessage: poke,
        onLost: (err) => {
          logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'list job worker: its notification channel is lost; polling until it listens again');
          poke();
        },
        onRestored: () => {
          logger.info('list job worker: listening for queued jobs again');
          poke();
        },
      },
      wake.timing,
    );
    // A job queued before the first LISTEN took effect notified nobody.
    void this.channel.started.then(poke);
  }

  start(): void {
    if (this.running) return;
    const slots = Array.from({ length: this.deps.config.concurrency }, () => this.napFor());
    this.listen(slots);
    const loops = slots.map((nap) => this.loop(nap));
    if (this.deps.webhooks) loops.push(this.webhookLoop(this.napFor(), this.deps.webhooks));
    this.running = Promise.all(loops).then(() => undefined);
  }

  /** The completion webhooks, one claim of due deliveries at a time. */
  private async webhookLoop(nap: Nap, webhooks: NonNullable<ListJobWorker['deps']['webhooks']>): Promise<void> {
    while (!this.stopping) {
      try {
        const tried = await deliverJobWebhooks(this.deps.db, { ...webhooks, token: this.token });
        if (!tried) await nap.sleep(this.deps.config.pollMs);
      } catch (err) {
        this.deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'list job worker: completion webhooks could not be claimed or recorded');
        await nap.sleep(this.deps.config.pollMs);
      }
    }
  }

  private napFor(): Nap {
    const nap = new Nap();
    this.naps.push(nap);
    return nap;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const nap of this.naps) nap.wake();
    await this.running;
    await this.channel?.close();
    await releaseChunks(this.deps.db, this.token).catch(() => undefined);
  }

  private async loop(nap: Nap): Promise<void> {
    const { db, config, logger } = this.deps;
    while (!this.stopping) {
      try {
        this.notified.set(nap, false);
        await this.sweep();
        const [chunk] = await claimChunks(db, { token: this.token, limit: 1, leaseSeconds: config.leaseSeconds, perWorkspace: config.concurrentPerWorkspace });
        if (!chunk) {
          // Listening: until a job is queued (one queued during the claim counts), or the fallback.
          if (!this.channel?.listening) await nap.sleep(config.pollMs);
          else if (!this.notified.get(nap)) await nap.sleep(this.deps.wake?.fallbackMs ?? JOB_FALLBACK_POLL_MS);
          continue;
        }
        this.rowsDone += await workChunk(db, chunk, this.token);
      } catch (err) {
        if (err instanceof LeaseLost) continue;
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'list job worker: a chunk failed; it is claimed again after its lease');
        await nap.sleep(config.pollMs);
      }
    }
  }

  private async sweep(): Promise<void> {
    if (Date.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = Date.now();
    const n = await deleteExpiredJobs(this.deps.db);
    if (n) this.deps.logger.info({ jobs: n }, 'list jobs past their retention deleted');
  }
}

/** A worker on its own bounded pool (statements and waits bounded by the request timeouts). */
export function createListJobWorker(
  config: Config,
  opts: { databaseUrl: string; logger: Logger; resolveHost?: ResolveHost },
): ListJobWorker & { stop(): Promise<void> } {
  const db = createKnex(opts.databaseUrl, config.jobs.concurrency * 4 + 2, {
    statementTimeoutMs: Math.max(config.dbStatementTimeoutMs, 30_000),
    acquireTimeoutMs: config.dbAcquireTimeoutMs * 5,
  });
  const worker = new ListJobWorker({ db, config: config.jobs, logger: opts.logger, webhooks: jobWebhooks(config, opts.resolveHost), wake: { databaseUrl: opts.databaseUrl } });
  const stop = worker.stop.bind(worker);
  worker.stop = async () => {
    await stop();
    await db.destroy();
  };
  return worker;
}

/** The completion webhooks' client and settings: the monitors' (SSRF policy, CA, timeout, schedule). */
export function jobWebhooks(config: Config, resolveHost: ResolveHost = systemResolver): { client: WebhookClient; keys: ServerKeys; settings: JobDeliverySettings } {
  const d = config.webhooks.delivery;
  return {
    client: new WebhookClient({
      policy: { allowLoopback: config.webhooks.allowLoopback },
      resolveHost,
      timeoutMs: d.timeoutMs,
      connectionsPerDestination: d.perDestination,
      ca: d.caFile ? fs.readFileSync(d.caFile, 'utf8') : undefined,
    }),
    keys: serverKeysOf(config),
    settings: { schedule: d.schedule, retryAfterCapSeconds: d.retryAfterCapSeconds, leaseSeconds: d.leaseSeconds },
  };
}
