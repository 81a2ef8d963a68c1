/**
 * The refresh worker: re-verifies the lake against the live source continuously, at most `rate`
 * records per second, oldest first, the watched lane ahead (domain/refresh/round.ts does the work).
 * Run inside `enrich serve` (REFRESH_IN_PROCESS, the default) or alone as `enrich worker`; any
 * number of workers share one database safely.
 *
 * It never stops on a failure: a source that cannot answer makes it back off (its circuit breaker
 * answers at once meanwhile), a database error is logged and retried. With no live source
 * configured it idles and says so. stop() lets the batch in hand finish (its write is one
 * transaction) and gives back what it had not written.
 */
import type { Knex } from 'knex';
import type { RefreshConfig } from '../config';
import { deleteExpiredKeys } from '../db/repositories/idempotencyKeys';
import { databaseNow, queueStats } from '../db/repositories/refreshQueue';
import type { LakeKind } from '../model/records';
import { IDEMPOTENCY_TTL_SECONDS } from '../domain/live/idempotency';
import type { Logger } from '../logger';
import type { LiveSource } from '../domain/live/source';
import { inSpan } from '../observability/tracing';
import { addBatch, askAhead, emptyRound, giveBack, refreshRound, writeAsked, type AskedBatch, type BatchOptions, type RefreshObserver, type RoundReport } from '../domain/refresh/round';
import type { Metrics } from '../observability/metrics';
import { Nap } from './nap';

export interface WorkerDeps {
  db: Knex;
  source: LiveSource;
  config: RefreshConfig;
  logger: Logger;
  metrics?: Metrics;
}

const KINDS: LakeKind[] = ['person', 'company'];

export class RefreshWorker {
  private stopping = false;
  private running: Promise<void> | undefined;
  private readonly nap = new Nap();
  private readonly totals: RoundReport = emptyRound();
  private readonly observer: RefreshObserver | undefined;

  constructor(private readonly deps: WorkerDeps) {
    const m = deps.metrics;
    this.observer = m && {
      records: (kind, outcome, count) => {
        if (count) m.refreshed.inc({ kind, outcome }, count);
      },
      changes: (entries) => {
        for (const e of entries) m.changes.inc({ event: e.event, origin: 'refresh' });
      },
    };
  }

  get report(): RoundReport {
    return { ...this.totals };
  }

  /** Starts the loop in the background. */
  start(): void {
    this.running ??= this.loop().catch((err) => this.deps.logger.error({ err }, 'refresh worker stopped on an unexpected error'));
  }

  /** Finishes the batch in hand and stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.nap.wake();
    await this.running;
  }

  /** One round with a fixed cutoff (tests, `enrich worker --once`, benchmarks). */
  async runRound(opts: { dueBefore?: Date; watchedDueBefore?: Date; kinds?: LakeKind[] } = {}): Promise<RoundReport> {
    const cut = await this.cutoffs();
    return inSpan('refresh.round', {}, () => refreshRound(
      { db: this.deps.db, source: this.deps.source, observer: this.observer },
      {
        batchSize: this.deps.config.batchSize,
        leaseSeconds: this.deps.config.leaseSeconds,
        dueBefore: opts.dueBefore ?? cut.dueBefore,
        watchedDueBefore: opts.watchedDueBefore ?? opts.dueBefore ?? cut.watchedDueBefore,
        kinds: opts.kinds,
        shouldStop: () => this.stopping,
      },
    ), { root: true });
  }

  /** The database clock minus this process's, as last measured (cutoffs()). */
  private clockOffsetMs: number | undefined;

  private async cutoffs(): Promise<{ dueBefore: Date; watchedDueBefore: Date }> {
    const before = Date.now();
    const now = (await databaseNow(this.deps.db)).getTime();
    this.clockOffsetMs = now - (before + Date.now()) / 2;
    return this.cutoffsAt(now);
  }

  /**
   * The cutoffs by the database clock, without asking it: this process's clock plus the offset
   * measured with the gauges (every REFRESH_PROGRESS_SECONDS); one round trip less per batch.
   */
  private cutoffsNow(): Promise<{ dueBefore: Date; watchedDueBefore: Date }> | { dueBefore: Date; watchedDueBefore: Date } {
    if (this.clockOffsetMs === undefined) return this.cutoffs();
    return this.cutoffsAt(Date.now() + this.clockOffsetMs);
  }

  private cutoffsAt(now: number): { dueBefore: Date; watchedDueBefore: Date } {
    return {
      dueBefore: new Date(now - this.deps.config.minAgeSeconds * 1000),
      watchedDueBefore: new Date(now - this.deps.config.watchedMinAgeSeconds * 1000),
    };
  }

  private async loop(): Promise<void> {
    const { config, logger, source } = this.deps;
    if (source.name === 'none') {
      logger.warn(
        'refresh worker idle: no live source is configured (set LIVE_SOURCE_URL, or LIVE_SOURCE=simulator for development); the lake is not re-verified',
      );
      while (!this.stopping) await this.nap.sleep(60_000);
      return;
    }
    logger.info(
      { source: source.name, rate_per_second: config.rate || 'unlimited', min_age_seconds: config.minAgeSeconds, lease_seconds: config.leaseSeconds },
      'refresh worker started',
    );
    let lastProgress = Date.now();
    let lastStats = 0;
    let sinceProgress = emptyRound();
    let backoffMs = 0;
    let kindIndex = 0;
    let idleKinds = 0;
    const deps = { db: this.deps.db, source, observer: this.observer };
    const batchOptions = async (): Promise<BatchOptions> => ({ batchSize: config.batchSize, leaseSeconds: config.leaseSeconds, ...(await this.cutoffsNow()) });
    // Traced as two traces of their own per batch (tracing.ts; nothing when tracing is off): the
    // claim and the live-source call, then the write, since the next batch is asked for while the
    // current one is written.
    const ask = () => {
      const kind = KINDS[kindIndex++ % KINDS.length] as LakeKind;
      return inSpan('refresh.fetch', { 'enrich.refresh.kind': kind }, async (span) => {
        const asked = await askAhead(deps, kind, batchOptions);
        span?.setAttribute('enrich.refresh.claimed', asked.claimed.length);
        return asked;
      }, { root: true });
    };
    const write = (asked: AskedBatch) =>
      inSpan('refresh.write', { 'enrich.refresh.kind': asked.kind, 'enrich.refresh.claimed': asked.claimed.length }, async (span) => {
        const batch = await writeAsked(deps, asked);
        span?.setAttributes({ 'enrich.refresh.changed': batch.changed, 'enrich.refresh.unchanged': batch.unchanged, 'enrich.refresh.not_found': batch.notFound, 'enrich.refresh.unavailable': batch.unavailable });
        return batch;
      }, { root: true });
    // The next batch, claimed and asked for while the current one is written (one ahead at most).
    let ahead: Promise<AskedBatch> | undefined;
    while (!this.stopping) {
      const started = Date.now();
      try {
        if (started - lastStats >= config.progressSeconds * 1000 || lastStats === 0) {
          lastStats = started;
          await this.cutoffs(); // measures the clock offset again
          await this.updateGauges();
          // Housekeeping that needs a periodic hand: realtime Idempotency-Keys past their 24 hours.
          await deleteExpiredKeys(this.deps.db, IDEMPOTENCY_TTL_SECONDS);
        }
        const current = ahead ?? ask();
        ahead = undefined;
        const asked = await current;
        const kind = asked.kind;
        if (asked.claimed.length && asked.answer?.status !== 'unavailable' && !this.stopping) ahead = ask();
        const batch = await write(asked);
        addBatch(this.totals, batch);
        addBatch(sinceProgress, batch);
        // One line per record the lake refused (rare), with its short reason: the rest was written.
        for (const r of batch.refusals ?? []) {
          logger.warn({ kind, id: r.id, reason: r.reason }, 'refresh: the live source\'s copy cannot be stored; set aside, asked again on its own schedule');
        }
        if (batch.unavailable) {
          backoffMs = Math.min(Math.max(backoffMs * 2, 500), 30_000);
          logger.warn({ kind, cause: batch.cause, reason: batch.reason, retry_in_ms: backoffMs }, 'refresh: live source unavailable; backing off');
          await this.nap.sleep(backoffMs);
          continue;
        }
        backoffMs = 0;
        idleKinds = batch.claimed ? 0 : idleKinds + 1;
        if (idleKinds >= KINDS.length) {
          idleKinds = 0;
          await this.nap.sleep(config.idleMs);
        } else if (config.rate > 0 && batch.claimed) {
          const wait = (batch.claimed / config.rate) * 1000 - (Date.now() - started);
          if (wait > 0) await this.nap.sleep(wait);
        }
      } catch (err) {
        logger.error({ err }, 'refresh batch failed; retrying');
        await this.nap.sleep(Math.min(config.idleMs, 5000));
      }
      if (Date.now() - lastProgress >= config.progressSeconds * 1000) {
        const seconds = (Date.now() - lastProgress) / 1000;
        logger.info(
          {
            refreshed: sinceProgress.changed + sinceProgress.unchanged,
            per_second: Math.round(((sinceProgress.changed + sinceProgress.unchanged) / seconds) * 10) / 10,
            changed: sinceProgress.changed,
            unchanged: sinceProgress.unchanged,
            changes_logged: sinceProgress.changes,
            not_found: sinceProgress.notFound,
            refused: sinceProgress.refused,
            unavailable: sinceProgress.unavailable,
          },
          'refresh progress',
        );
        lastProgress = Date.now();
        sinceProgress = emptyRound();
      }
    }
    // A batch asked for but not written is given back: its records are due again at once.
    if (ahead) await giveBack(deps, await ahead.catch(() => undefined));
    logger.info({ totals: this.totals }, 'refresh worker stopped');
  }

  private async updateGauges(): Promise<void> {
    const m = this.deps.metrics;
    if (!m) return;
    const { dueBefore } = await this.cutoffs();
    for (const kind of KINDS) {
      const stats = await queueStats(this.deps.db, kind, dueBefore);
      m.queueDue.set({ kind }, stats.due);
      m.queueLeased.set({ kind }, stats.leased);
      if (stats.oldestFetchedAt) m.oldestFetchedAt.set({ kind }, stats.oldestFetchedAt.getTime() / 1000);
    }
  }
}
