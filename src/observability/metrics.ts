/**
 * Prometheus metrics (prom-client): request counts and latencies by contract operation and status,
 * the live source, the refresh, webhook delivery, plus the process defaults. Labelled by
 * operationId, never by raw path, so cardinality stays bounded. Outside `http/` because the jobs
 * (refresh worker, delivery worker) and `enrich worker` report into the same registry; nothing here
 * knows Koa (the edge hands over the answered request as AnsweredRequest).
 */
import perfHooks, { PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { buildInfo } from './version';
import type { BreakerState, SourceObserver, SourceOperation, SourceOutcome } from '../domain/live/resilience';
import type { Unavailable } from '../domain/live/source';

/** What observeRequest reads of an answered request (Koa's context has it; no Koa type needed). */
export interface AnsweredRequest {
  status: number;
  state: { operation?: { operationId?: string }; raw?: boolean };
}

/**
 * prom-client's process defaults, stoppable. collectDefaultMetrics starts a PerformanceObserver on
 * GC entries and an enabled event-loop-delay histogram and returns neither, so they would run, and
 * keep their metrics alive, for the life of the process. They are caught as they are created (the
 * two perf_hooks entry points are wrapped for the duration of the call) so the returned function can
 * stop them. One app per process never needs it; every test that creates an app does.
 */
/** prom-client defaults that are not collected (see collectStoppableDefaultMetrics). */
export const UNSAFE_DEFAULT_METRICS = ['nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_requests', 'nodejs_active_requests_total'];

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
    // The event-loop-delay histogram wakes the loop at this resolution: prom-client's 10 ms default
    // cost an idle server about 8 ms of CPU a second (issue 35); 50 ms still sees any stall an
    // operator would act on, at a fifth of the wake-ups.
    collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 50 });
  } finally {
    PerformanceObserver.prototype.observe = observe;
    hooks.monitorEventLoopDelay = monitor;
  }
  // These call process._getActiveHandles()/_getActiveRequests(), which walk every handle's owner and
  // can abort the whole process on a Node assertion (async_wrap.cc GetOwner: !obj.IsEmpty()) when a
  // scrape meets a handle being torn down: seen once in CI. nodejs_active_resources (from the public
  // process.getActiveResourcesInfo()) reports the same counts by type without touching the handles.
  for (const name of UNSAFE_DEFAULT_METRICS) register.removeSingleMetric(name);
  return () => {
    for (const observer of observers) observer.disconnect();
    for (const histogram of histograms) histogram.disable();
  };
}

export class Metrics {
  readonly registry = new Registry();
  private readonly duration = new RequestDurations(this.registry);
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
    help: 'Live-source calls that failed, by operation and cause (deadline: no answer in time; failed: an error status, a refused connection or an invalid answer; circuit_open; busy: the queue was full; none: no source)',
    labelNames: ['operation', 'cause'],
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
    help: 'Records the refresh handled, by kind and outcome (changed, unchanged, not_found, unavailable, dropped: lease lost or withdrawn, refused: the copy cannot be stored)',
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
    help: 'Unix time of the oldest check in the refresh queue (the oldest fetched_at, but for records the source no longer knows), by kind',
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
  readonly webhookBacklog = new Gauge({
    name: 'enrich_webhook_deliveries_pending',
    help: 'Pending webhook deliveries, by state: due (may go out now), scheduled (a retry waiting for its time), leased (being attempted), paused (an inactive monitor or license)',
    labelNames: ['state'],
    registers: [this.registry],
  });
  readonly feedUnsequenced = new Gauge({
    name: 'enrich_event_feed_unsequenced',
    help: 'Events committed or being written that have no feed position yet (GET /events lists them once the sequencer numbers them)',
    registers: [this.registry],
  });
  readonly feedOldestUnsequenced = new Gauge({
    name: 'enrich_event_feed_oldest_unsequenced_seconds',
    help: 'Age of the oldest event without a feed position (0 when none): the feed delay an alert watches',
    registers: [this.registry],
  });
  readonly feedSequenced = new Counter({
    name: 'enrich_event_feed_sequenced_total',
    help: 'Events given a feed position by this process',
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
    // The usual build-info idiom: one series, value 1, the build in its labels, so a dashboard can
    // join it (or count versions across instances during a rollout).
    const { version, commit } = buildInfo();
    new Gauge({
      name: 'enrich_build_info',
      help: 'The running build: always 1, labelled with the package version and the commit ("unknown" when not recorded)',
      labelNames: ['version', 'commit'],
      registers: [this.registry],
    }).set({ version, commit: commit ?? 'unknown' }, 1);
  }

  /** Stops the process metrics' observers (GC, event-loop delay); the registry still answers. */
  close(): void {
    this.stopDefaults();
  }

  /** What the live source's resilience policy reports into. */
  readonly source: SourceObserver = {
    call: (operation: SourceOperation, outcome: SourceOutcome, seconds: number, failure?: Unavailable) => {
      this.sourceDuration.observe({ operation, outcome }, seconds);
      if (outcome === 'unavailable') this.sourceErrors.inc({ operation, cause: failure?.cause ?? 'failed' });
    },
    breaker: (state: BreakerState) => this.breakerOpen.set(state === 'closed' ? 0 : 1),
  };

  /**
   * Observes a request once it is answered, errors included (called by the edge, so with the final
   * status). Each (operation, status) pair's series is looked up once and kept, and an observation
   * is two additions (RequestDurations): prom-client's labelled child validates and hashes its
   * labels on every call.
   */
  observeRequest(ctx: AnsweredRequest, startedNs: bigint): void {
    const operation = ctx.state.operation?.operationId ?? (ctx.state.raw ? 'non_contract' : 'unmatched');
    const status = ctx.status;
    this.duration.series(operation, status).observe(Number(process.hrtime.bigint() - startedNs) / 1e9);
    if (status === 429) this.rateLimited.inc();
  }
}

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One (operation, status) series of the request-duration histogram. */
class DurationSeries {
  /** Observations per bucket (not cumulative; the last slot is above every bound). */
  readonly counts = new Array<number>(DURATION_BUCKETS.length + 1).fill(0);
  sum = 0;
  count = 0;

  constructor(readonly labels: { operation: string; status: string }) {}

  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    this.counts[i]++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * enrich_http_request_duration_seconds: the histogram prom-client's Histogram would keep, with the
 * same buckets, series and exposition (the registry formats what get() returns exactly as it
 * formats a Histogram's), but observed without a label object per request.
 */
class RequestDurations {
  readonly name = 'enrich_http_request_duration_seconds';
  readonly help = 'Time to answer an HTTP request, by contract operation and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly byOperation = new Map<string, Map<number, DurationSeries>>();

  constructor(registry: Registry) {
    registry.registerMetric(this as never);
  }

  series(operation: string, status: number): DurationSeries {
    let byStatus = this.byOperation.get(operation);
    if (!byStatus) {
      byStatus = new Map();
      this.byOperation.set(operation, byStatus);
    }
    let series = byStatus.get(status);
    if (!series) {
      series = new DurationSeries({ operation, status: String(status) });
      byStatus.set(status, series);
    }
    return series;
  }

  get() {
    const bucket = `${this.name}_bucket`;
    const values: { value: number; metricName: string; exemplar?: null; labels: Record<string, string | number> }[] = [];
    for (const byStatus of this.byOperation.values()) {
      for (const s of byStatus.values()) {
        let cumulative = 0;
        DURATION_BUCKETS.forEach((le, i) => {
          cumulative += s.counts[i];
          values.push({ value: cumulative, metricName: bucket, exemplar: null, labels: { le, ...s.labels } });
        });
        values.push({ value: s.count, metricName: bucket, exemplar: null, labels: { le: '+Inf', ...s.labels } });
        values.push({ value: s.sum, metricName: `${this.name}_sum`, labels: { ...s.labels } });
        values.push({ value: s.count, metricName: `${this.name}_count`, labels: { ...s.labels } });
      }
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.byOperation.clear();
  }
}
