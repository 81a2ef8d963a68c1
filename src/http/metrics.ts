/**
 * Prometheus metrics (prom-client): request counts and latencies by contract operation and status,
 * plus the process defaults. Labelled by operationId, never by raw path, so cardinality stays bounded.
 */
import perfHooks, { PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BreakerState, SourceObserver, SourceOperation, SourceOutcome } from '../domain/live/resilience';
import type { Middleware } from 'koa';
import type { AppContext, RequestState } from './state';

/**
 * prom-client's process defaults, stoppable. collectDefaultMetrics starts a PerformanceObserver on
 * GC entries and an enabled event-loop-delay histogram and returns neither, so they would run, and
 * keep their metrics alive, for the life of the process. They are caught as they are created (the
 * two perf_hooks entry points are wrapped for the duration of the call) so the returned function can
 * stop them. One app per process never needs it; every test that creates an app does.
 */
function collectStoppableDefaultMetrics(register: Registry): () => void {
  const observers: PerformanceObserver[] = [];
  const histograms: IntervalHistogram[] = [];
  const hooks = perfHooks as { monitorEventLoopDelay: typeof perfHooks.monitorEventLoopDelay };
  const observe = PerformanceObserver.prototype.observe;
  const monitor = hooks.monitorEventLoopDelay;
  PerformanceObserver.prototype.observe = function (this: PerformanceObserver, ...args: Parameters<typeof observe>) {
    observers.push(this);
    return observe.apply(this, args);
  };
  hooks.monitorEventLoopDelay = (...args) => {
    const histogram = monitor(...args);
    histograms.push(histogram);
    return histogram;
  };
  try {
    collectDefaultMetrics({ register });
  } finally {
    PerformanceObserver.prototype.observe = observe;
    hooks.monitorEventLoopDelay = monitor;
  }
  return () => {
    for (const observer of observers) observer.disconnect();
    for (const histogram of histograms) histogram.disable();
  };
}

export class Metrics {
  readonly registry = new Registry();
  private readonly duration = new Histogram({
    name: 'enrich_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by contract operation and status',
    labelNames: ['operation', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'enrich_rate_limited_total',
    help: 'Requests refused with 429',
    registers: [this.registry],
  });

  // The live source (realtime and refresh calls) -------------------------------------------
  private readonly sourceDuration = new Histogram({
    name: 'enrich_live_source_duration_seconds',
    help: 'Time of a live-source call (one record or a batch), by operation and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly sourceErrors = new Counter({
    name: 'enrich_live_source_errors_total',
    help: 'Live-source calls that failed (timeout, error status, unreachable, circuit open)',
    labelNames: ['operation'],
    registers: [this.registry],
  });
  private readonly breakerOpen = new Gauge({
    name: 'enrich_live_source_circuit_open',
    help: '1 while the live-source circuit breaker is open or half-open, else 0',
    registers: [this.registry],
  });

  // The refresh -----------------------------------------------------------------------------
  readonly refreshed = new Counter({
    name: 'enrich_refresh_records_total',
    help: 'Records the refresh handled, by kind and outcome (changed, unchanged, not_found, unavailable, stale, withdrawn)',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  readonly changes = new Counter({
    name: 'enrich_change_log_entries_total',
    help: 'Change-log entries recorded by this process, by event and origin',
    labelNames: ['event', 'origin'],
    registers: [this.registry],
  });
  readonly queueDue = new Gauge({
    name: 'enrich_refresh_queue_due',
    help: 'Records due for a refresh (older than the minimum age), by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly queueLeased = new Gauge({
    name: 'enrich_refresh_queue_leased',
    help: 'Records claimed by a worker right now, by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly oldestFetchedAt = new Gauge({
    name: 'enrich_refresh_oldest_fetched_at_seconds',
    help: 'Unix time of the oldest fetched_at in the lake, by kind',
    labelNames: ['kind'],
    registers: [this.registry],
  });

  // Webhook delivery ------------------------------------------------------------------------
  readonly webhookAttempts = new Counter({
    name: 'enrich_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (succeeded, retry, failed, lost: the lease was lost)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly webhookLatency = new Histogram({
    name: 'enrich_webhook_attempt_seconds',
    help: 'Duration of webhook delivery attempts, to the status line or the failure',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });

  private readonly stopDefaults: () => void;

  constructor() {
    this.stopDefaults = collectStoppableDefaultMetrics(this.registry);
  }

  /** Stops the process metrics' observers (GC, event-loop delay); the registry still answers. */
  close(): void {
    this.stopDefaults();
  }

  /** What the live source's resilience policy reports into. */
  readonly source: SourceObserver = {
    call: (operation: SourceOperation, outcome: SourceOutcome, seconds: number) => {
      this.sourceDuration.observe({ operation, outcome }, seconds);
      if (outcome === 'unavailable') this.sourceErrors.inc({ operation });
    },
    breaker: (state: BreakerState) => this.breakerOpen.set(state === 'closed' ? 0 : 1),
  };

  private readonly children = new Map<string, { observe(seconds: number): void }>();

  /**
   * Observes a request once it is answered, errors included (called outside edge, so with the
   * final status). The labelled child of each (operation, status) pair is looked up once and kept:
   * prom-client's labelled timer merges and validates a label object on every call.
   */
  observeRequest(ctx: AppContext, startedNs: bigint): void {
    const operation = ctx.state.operation?.operationId ?? (ctx.state.raw ? 'non_contract' : 'unmatched');
    const status = ctx.status;
    const key = `${operation} ${status}`;
    let child = this.children.get(key);
    if (!child) {
      child = this.duration.labels({ operation, status: String(status) });
      this.children.set(key, child);
    }
    child.observe(Number(process.hrtime.bigint() - startedNs) / 1e9);
    if (status === 429) this.rateLimited.inc();
  }

  /** observeRequest as a middleware of its own (app.ts folds it with the request counter into one). */
  middleware(): Middleware<RequestState> {
    return async (ctx, next) => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        this.observeRequest(ctx, started);
      }
    };
  }
}
