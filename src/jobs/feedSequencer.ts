/**
 * The event feed's sequencer loop (domain/events/feed.ts sequenceFeed): every SEQUENCE_EVERY_MS,
 * one short transaction numbers the committed events that have no feed position yet. Every
 * `enrich serve` and `enrich worker` runs one; an advisory lock lets one pass run at a time per
 * database, so positions are given in increasing order only and GET /events can page by them
 * (gapless, in order), with a delay of about one interval after an event's commit, whatever any
 * other transaction on the server does. A failed pass (database down or slow: each statement is
 * bounded) is logged once per run of failures and tried again at the next tick; a full batch is
 * followed by the next pass at once. Once a minute it also deletes events past the retention.
 * A pass first probes whether anything waits for a position (one statement on a partial index): an
 * idle feed, the usual state, costs that probe per interval instead of a five-statement transaction
 * (the idle server's background CPU, issue 35).
 */
import type { Knex } from 'knex';
import { createKnex } from '../db/knex';
import { SEQUENCE_BATCH, SEQUENCE_EVERY_MS, feedBacklog, feedHasUnsequenced, pruneExpiredEvents, sequenceFeed } from '../domain/events/feed';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import { Nap } from './nap';

export interface FeedSequencerDeps {
  db: Knex;
  logger: Logger;
  /** Default SEQUENCE_EVERY_MS. */
  everyMs?: number;
  /** Each statement's bound (default 5 s). */
  timeoutMs?: number;
  metrics?: Metrics;
}

const PRUNE_EVERY_MS = 60_000;
/** The backlog gauges are read again at most this often. */
const BACKLOG_EVERY_MS = 1_000;

export class FeedSequencer {
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly nap = new Nap();
  private failing = false;
  private lastPrune = 0;
  private lastBacklog = 0;
  /** Events numbered by this process since it started. */
  numbered = 0;

  constructor(private readonly deps: FeedSequencerDeps) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.nap.wake();
    await this.running;
  }

  /** One pass (and, when due, the retention's prune); never throws. Returns the events numbered. */
  async tick(): Promise<number> {
    const { db, logger } = this.deps;
    try {
      // An idle feed (the usual state between changes): one index probe, no transaction, no lock.
      const pending = await feedHasUnsequenced(db);
      const n = pending ? await sequenceFeed(db, this.deps.timeoutMs ?? 5_000) : 0;
      this.numbered += n;
      const metrics = this.deps.metrics;
      if (metrics) {
        metrics.feedSequenced.inc(n);
        if (Date.now() - this.lastBacklog >= BACKLOG_EVERY_MS) {
          this.lastBacklog = Date.now();
          // Nothing was waiting at the probe: the gauges' answer is known without counting.
          const backlog = pending ? await feedBacklog(db) : { rows: 0, oldest_seconds: 0 };
          metrics.feedUnsequenced.set(backlog.rows);
          metrics.feedOldestUnsequenced.set(backlog.oldest_seconds);
        }
      }
      if (this.failing) logger.info('event feed sequencer: the database answers again');
      this.failing = false;
      if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        await pruneExpiredEvents(db);
      }
      return n;
    } catch (err) {
      if (!this.failing) logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'event feed sequencer: a pass failed; trying again');
      this.failing = true;
      return 0;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const n = await this.tick();
      if (this.stopping) break;
      if (n < SEQUENCE_BATCH) await this.nap.sleep(this.deps.everyMs ?? SEQUENCE_EVERY_MS);
    }
  }
}

/** Each statement's and each connection wait's bound on the sequencer's own pool. */
const SEQUENCER_DB_TIMEOUT_MS = 5_000;

/**
 * The sequencer of `enrich serve` and `enrich worker`, on a pool of its own (one connection, its
 * statements and connection waits bounded): a stalled database fails a pass in 5 s, and busy request
 * or refresh pools never hold the feed back. stop() also closes the pool.
 */
export function createFeedSequencer(databaseUrl: string, opts: { logger: Logger; metrics?: Metrics }): FeedSequencer {
  const db = createKnex(databaseUrl, 1, { statementTimeoutMs: SEQUENCER_DB_TIMEOUT_MS, acquireTimeoutMs: SEQUENCER_DB_TIMEOUT_MS });
  const sequencer = new FeedSequencer({ db, logger: opts.logger, metrics: opts.metrics, timeoutMs: SEQUENCER_DB_TIMEOUT_MS });
  const stop = sequencer.stop.bind(sequencer);
  sequencer.stop = async () => {
    await stop();
    await db.destroy();
  };
  return sequencer;
}
