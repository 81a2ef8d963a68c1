/**
 * Prometheus metrics (prom-client): request counts and latencies by contract operation and status,
 * plus the process defaults. Labelled by operationId, never by raw path, so cardinality stays bounded.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Middleware } from 'koa';
import type { RequestState } from './state';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Observes every request once it is answered, errors included (it runs outside edge). */
  middleware(): Middleware<RequestState> {
    return async (ctx, next) => {
      const end = this.duration.startTimer();
      try {
        await next();
      } finally {
        const operation = ctx.state.operation?.operationId ?? (ctx.state.raw ? 'non_contract' : 'unmatched');
        end({ operation, status: String(ctx.status) });
        if (ctx.status === 429) this.rateLimited.inc();
      }
    };
  }
}
