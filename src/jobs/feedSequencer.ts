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
 *
 * With `wake` (what `enrich serve` and `enrich worker` run) it does not poll every interval at all:
 * it listens on the feed's channel (every insert of the feed notifies it in the rows' own
 * transaction, db/repositories/eventFeed.ts), passes when told that rows committed (at most one
 * pass per interval, so a burst of commits is numbered in a few passes, and the delay after a
 * commit stays within about one interval), and otherwise every SEQUENCE_FALLBACK_MS (the prune, the
 * gauges). While the listening connection is lost (the channel reconnects with backoff) it polls
 * every interval as before, and it passes once as soon as it listens again (a row committed while
 * nobody listened is taken then).
 */
import type { Knex } from 'knex';
import { createKnex } from '../db/knex';
import { SEQUENCE_BATCH, SEQUENCE_EVERY_MS, SEQUENCE_FALLBACK_MS, feedBacklog, feedHasUnsequenced, listenForNewEvents, pruneExpiredEvents, sequenceFeed, type ChannelSubscription, type ChannelTiming } from '../domain/events/feed';
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
  /** Wake on the feed's notifications instead of polling every interval (see the file's comment). */
  wake?: {
    databaseUrl: string;
    /** The poll while listening; default SEQUENCE_FALLBACK_MS. */
    fallbackMs?: number;
    /** The listening connection's reconnection backoff, heartbeat and timeouts. */
    timing?: Partial<ChannelTiming>;
  };
}

const PRUNE_EVERY_MS = 60_000;
/** The backlog gauges are read again at most this often. */
const BACKLOG_EVERY_MS = 1_000;

export class FeedSequencer {
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly nap = new Nap();
  /** The pause that keeps passes at most one per interval; only stop() cuts it short. */
  private readonly pace = new Nap();
  private channel: ChannelSubscription | undefined;
  /** A notification (or a change of the channel) came since the last pass began. */
  private notified = false;
  private failing = false;
  private lastPrune = 0;
  private lastBacklog = 0;
  /** Events numbered by this process since it started. */
  numbered = 0;

  constructor(private readonly deps: FeedSequencerDeps) {}

  start(): void {
    const wake = this.deps.wake;
    if (wake && !this.channel && !this.stopping) {
      const poke = () => {
        this.notified = true;
        this.nap.wake();
      };
      const { logger } = this.deps;
      this.channel = listenForNewEvents(
        wake.databaseUrl,
        {
          onMessage: poke,
          // Lost: poll every interval from now on (the long pause in progress is cut short).
          onLost: (err) => {
            logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'event feed sequencer: its notification channel is lost; polling until it listens again');
            poke();
          },
          onRestored: () => {
            logger.info('event feed sequencer: listening for new events again');
            poke();
          },
        },
        wake.timing,
      );
      // Rows committed before the first LISTEN took effect sent nobody a notification.
      void this.channel.started.then(poke);
    }
    this.running ??= this.loop();
  }

  /** Whether the sequencer is woken by notifications now (false: it polls every interval). */
  get listening(): boolean {
    return this.channel?.listening ?? false;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.nap.wake();
    this.pace.wake();
    await this.running;
    await this.channel?.close();
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
    const every = this.deps.everyMs ?? SEQUENCE_EVERY_MS;
    while (!this.stopping) {
      const began = Date.now();
      this.notified = false;
      const n = await this.tick();
      if (this.stopping) break;
      if (n >= SEQUENCE_BATCH) continue;
      if (!this.channel?.listening) {
        await this.nap.sleep(every);
        continue;
      }
      // Listening: wait for a notification (one that came during the pass counts), or the fallback.
      if (!this.notified) await this.nap.sleep(this.deps.wake?.fallbackMs ?? SEQUENCE_FALLBACK_MS);
      const since = Date.now() - began;
      if (!this.stopping && since < every) await this.pace.sleep(every - since);
    }
  }
}

/** Each statement's and each connection wait's bound on the sequencer's own pool. */
const SEQUENCER_DB_TIMEOUT_MS = 5_000;

/**
 * The sequencer of `enrich serve` and `enrich worker`, on a pool of its own (one connection, its
 * statements and connection waits bounded): a stalled database fails a pass in 5 s, and busy request
 * or refresh pools never hold the feed back; woken by the feed's notifications (a second connection,
 * the listening one). stop() also closes the pool and the channel.
 */
export function createFeedSequencer(databaseUrl: string, opts: { logger: Logger; metrics?: Metrics }): FeedSequencer {
  const db = createKnex(databaseUrl, 1, { statementTimeoutMs: SEQUENCER_DB_TIMEOUT_MS, acquireTimeoutMs: SEQUENCER_DB_TIMEOUT_MS });
  const sequencer = new FeedSequencer({ db, logger: opts.logger, metrics: opts.metrics, timeoutMs: SEQUENCER_DB_TIMEOUT_MS, wake: { databaseUrl } });
  const stop = sequencer.stop.bind(sequencer);
  sequencer.stop = async () => {
    await stop();
    await db.destroy();
  };
  return sequencer;
}
