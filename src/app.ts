/**
 * createApp builds the Koa application from its dependencies and never listens, so tests drive it
 * through app.callback() and main.ts owns the socket. Two Koa middleware: edge (request id,
 * errors, envelope, metrics and the request counter), then either the non-contract routes
 * (/metrics, /docs, /dashboard) or, under the API root, the API's steps in order: route (404/405)
 * -> authenticate (401/402) -> rate limit (429) -> JSON body (413/415) -> dispatch (validation 400,
 * handler).
 */
import Koa from 'koa';
import type Redis from 'ioredis';
import type { Knex } from 'knex';
import type { Config } from './config';
import { primaryReads, type LakeReads } from './db/replicas';
import type { Logger } from './logger';
import { Authenticator } from './domain/auth/authenticator';
import { Coalescer } from './domain/live/coalesce';
import type { RealtimeDeps } from './domain/live/realtime';
import { NoLiveSource, type LiveSource } from './domain/live/source';
import { RateLimits } from './domain/ratelimit/rateLimits';
import { createContract } from './http/contract';
import { operationHandlers, registrations } from './http/handlers';
import { serverKeysOf } from './domain/webhooks/secrets';
import { systemResolver, type ResolveHost } from './domain/webhooks/ssrf';
import { authenticate } from './http/middleware/authenticate';
import { jsonBody } from './http/middleware/body';
import { dispatch } from './http/middleware/dispatch';
import { edge } from './http/middleware/edge';
import { Limits } from './http/middleware/limits';
import { isApiPath, route } from './http/middleware/route';
import { Metrics } from './observability/metrics';
import { operationalRoutes } from './http/routes/operational';
import { dashboardRoutes } from './http/routes/dashboard';
import { RequestCounter } from './http/requestCounter';
import { sessionAuthenticator } from './http/session';
import { runSteps, type RequestState, type Step } from './http/state';
import { LeanKoa } from './http/leanKoa';
import { clientErrorHandler, MAX_HEADER_BYTES } from './http/clientError';
import type { Middleware } from 'koa';

export interface AppDeps {
  config: Config;
  knex: Knex;
  logger: Logger;
  /** Present when REDIS_URL is set: rate-limit windows are then shared by every instance. */
  redis?: Redis;
  /** Connection string for the auth cache's LISTEN connection; omitted = TTL-only invalidation. */
  databaseUrl?: string;
  /** The live source of the realtime operations; omitted = none (they answer 503). */
  liveSource?: LiveSource;
  /** Host-name resolver of the webhook URL checks; omitted = the system resolver. */
  resolveHost?: ResolveHost;
  /** Shared with the in-process refresh worker so /metrics shows its figures too. */
  metrics?: Metrics;
  /** Where the lake's reads run (read replicas, db/replicas.ts); omitted = `knex`, the primary. */
  reads?: LakeReads;
}

export interface App {
  koa: Koa<RequestState>;
  metrics: Metrics;
  authenticator: Authenticator;
  rateLimits: RateLimits;
  /** Per-workspace daily request counts, written in batches (the dashboard's usage timeline). */
  requestCounter: RequestCounter;
  /** The HTTP server's 'clientError' listener: requests its parser refuses, answered in the envelope (http/server.ts). */
  answerClientError: ReturnType<typeof clientErrorHandler>;
  close(): Promise<void>;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const { config, knex, logger } = deps;
  const rateLimits = new RateLimits({
    windowSeconds: config.rateLimitWindowSeconds,
    redis: deps.redis,
    onStoreChange: (state, err) =>
      state === 'up'
        ? logger.info({ rate_limit_store: 'redis' }, 'redis answers again: rate limits are shared by every instance again')
        : logger.warn(
            { rate_limit_store: 'memory', err: err instanceof Error ? err.message : String(err) },
            'redis unavailable: each instance limits requests in its own memory until it answers again',
          ),
  });
  const authenticator = new Authenticator(knex, {
    ttlMs: config.authCacheTtlMs,
    degradedTtlMs: config.authCacheDegradedTtlMs,
    databaseUrl: deps.databaseUrl,
    onChannelChange: (state, err) =>
      state === 'lost'
        ? logger.warn(
            { err: err instanceof Error ? err.message : String(err), key_cache_ttl_ms: config.authCacheDegradedTtlMs },
            'auth change channel lost: key cache emptied and its TTL shortened until it listens again; reconnecting with backoff',
          )
        : logger.info({ key_cache_ttl_ms: config.authCacheTtlMs }, 'auth change channel listening again: key cache emptied, TTL back to normal'),
  });
  await authenticator.start();
  const live: RealtimeDeps = {
    db: knex,
    source: deps.liveSource ?? new NoLiveSource(),
    coalescer: new Coalescer(),
    // Another instance's fetch of the same subject holds its lock for at most the source deadline.
    lockWaitMs: config.live.timeoutMs * 2 + 1000,
    onUnavailable: ({ cause, reason }, kind) => logger.warn({ cause, reason, kind, source: live.source.name }, 'realtime: live source unavailable (503)'),
  };
  if (config.webhooks.allowLoopback) {
    logger.warn('WEBHOOKS_ALLOW_LOOPBACK is on: monitors may deliver to loopback receivers. Development only; never in production.');
  }
  const monitors = {
    db: knex,
    keys: serverKeysOf(config),
    resolveHost: deps.resolveHost ?? systemResolver,
    ssrf: { allowLoopback: config.webhooks.allowLoopback },
    maxPerWorkspace: config.webhooks.maxMonitorsPerWorkspace,
  };
  // The one owner of windows, quotas and the failed-authentication budget at the edge.
  const limits = new Limits({ rateLimits, anonymousRateLimit: config.anonymousRateLimit, authFailureLimit: config.authFailureLimit });
  const handlers = operationHandlers({ knex, reads: deps.reads ?? primaryReads(knex), config, live, monitors, limits, rateLimitStore: () => rateLimits.storeState() });
  const api = await createContract(registrations(handlers));

  // Behind N trusted proxies the client address is the one the outermost of them saw: the N-th
  // X-Forwarded-For entry from the right. Entries further left are whatever the client sent.
  // Koa, with the answers the edge writes itself left out of its respond() (leanKoa.ts).
  const koa = new LeanKoa<RequestState>({ proxy: config.trustProxyHops > 0, maxIpsCount: config.trustProxyHops });
  // Errors are answered by edge(); Koa's default handler would only print them again.
  koa.silent = true;
  const metrics = deps.metrics ?? new Metrics();
  const requestCounter = new RequestCounter(knex, { flushMs: config.usageFlushMs, logger });
  // Outermost: request id, errors, envelope, and (with the final status) metrics and usage counts.
  koa.use(edge({ logger, limits, metrics, requestCounter, accessLog: config.accessLog }));
  // The API's pipeline runs as plain steps (state.ts runSteps), not as Koa middleware frames.
  const apiSteps = [
    route(api),
    authenticate({ authenticator, limits, session: sessionAuthenticator(knex, { publicOrigin: config.publicOrigin }) }),
    limits.admit,
    jsonBody(config.bodyLimitBytes),
    dispatch(api, handlers),
  ];
  koa.use(
    apiOrOutside(
      apiSteps,
      operationalRoutes(metrics).routes() as Middleware<RequestState>,
      dashboardRoutes().routes() as Middleware<RequestState>,
    ),
  );

  return {
    koa,
    metrics,
    authenticator,
    rateLimits,
    requestCounter,
    answerClientError: clientErrorHandler({ limits, logger, maxHeaderBytes: MAX_HEADER_BYTES }),
    close: async () => {
      await requestCounter.close();
      await rateLimits.close();
      await authenticator.close();
      metrics.close();
    },
  };
}

/**
 * Requests under the API root run the API's steps; the non-contract routes (/metrics, /docs,
 * /openapi.*, /dashboard) are all outside it, so API requests skip their routers' matching.
 */
function apiOrOutside(steps: readonly Step[], first: Middleware<RequestState>, second: Middleware<RequestState>): Middleware<RequestState> {
  return (ctx, next) => (isApiPath(ctx.path) ? runSteps(ctx, steps) : first(ctx, () => second(ctx, next)));
}
