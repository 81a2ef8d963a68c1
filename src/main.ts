/**
 * Process wiring: config -> logger -> database (embedded unless DATABASE_URL) -> migrations ->
 * optional Redis -> app -> listen; SIGINT/SIGTERM drain requests, then close Redis and the database.
 */
import http from 'node:http';
import net from 'node:net';
import Redis from 'ioredis';
import { createApp } from './app';
import { createHttpServer } from './http/server';
import { loadConfig, type Config } from './config';
import { createKnex, migrateLatest, openDatabase, type Knex } from './db/knex';
import { pendingMigrations } from './db/migrationState';
import { ReadReplicas } from './db/replicas';
import { createLogger, type Logger } from './logger';
import { ensureDemoWorkspace } from './domain/workspaces/demo';
import { createSignInLink, signInUrl } from './domain/workspaces/sessions';
import { Metrics } from './observability/metrics';
import { RefreshWorker } from './jobs/refreshWorker';
import { createDeliveryWorker } from './jobs/deliveryWorker';
import { createFeedSequencer, type FeedSequencer } from './jobs/feedSequencer';
import { createListJobWorker } from './jobs/listJobWorker';
import { createLiveSource, type LiveWiring } from './live';
import { buildInfo } from './observability/version';
import { stopTracing, tracingDescription } from './observability/tracing';

/**
 * The demo world (`--demo`) and its generator (faker) are development dependencies: a production
 * install (`npm ci --omit=dev`) has neither, and a server without --demo never loads them.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadDemo = () => require('./world/demo') as typeof import('./world/demo');

export interface RunningServer {
  server: http.Server;
  url: string;
  stop(): Promise<void>;
}

/** `migrate: false` (`enrich serve --no-migrate`): the schema must already be current (`enrich migrate`). */
export async function startServer(opts: { demo?: boolean; config?: Config; migrate?: boolean } = {}): Promise<RunningServer> {
  const config = opts.config ?? loadConfig(process.env, { demo: opts.demo });
  const logger = createLogger(config.logLevel);
  // A port already taken is found before the database starts (an embedded PostgreSQL takes seconds,
  // the demo world longer): the command fails at once with one clear line.
  await ensurePortFree(config.host, config.port);
  const db = await openDatabase(
    config,
    (line) => logger.debug({ postgres: line }),
    (line) => logger.warn(line),
  );
  // Everything opened from here on is closed again if starting fails (a migration, or the port taken
  // between the check above and now): the process must not stay up holding the database.
  const opened: (() => Promise<unknown> | undefined)[] = [() => db.close()];
  const closeOpened = async () => {
    for (const close of opened.reverse()) await Promise.resolve(close()).catch(() => undefined);
  };
  let sampleUsername: string | undefined;
  let server: http.Server;
  let requestKnex: Knex;
  let worker: RefreshWorker | undefined;
  let deliveries: ReturnType<typeof createDeliveryWorker> | undefined;
  let sequencer: FeedSequencer | undefined;
  let listJobs: ReturnType<typeof createListJobWorker> | undefined;
  let live: LiveWiring;
  let app: Awaited<ReturnType<typeof createApp>>;
  let redis: Redis | undefined;
  let reads: ReadReplicas | undefined;
  try {
    logger.info({ database: db.embedded ? `embedded (${config.dataDir}/postgres)` : 'DATABASE_URL' }, 'database ready');
    if (opts.migrate === false) {
      const pending = await pendingMigrations(db.knex);
      if (pending.length) {
        throw new Error(`the database lacks ${pending.length} migration(s) of this version (${pending.join(', ')}): run \`enrich migrate\` against the primary first`);
      }
    } else {
      const applied = await migrateLatest(db.knex);
      if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    }

    // The demo serves real profiles from its first request: an empty lake gets a small world first.
    if (opts.demo) {
      const world = await loadDemo().ensureDemoWorld(db.knex);
      if (world.loaded) {
        logger.info(
          { persons: world.loaded.loaded_persons, world_persons: world.loaded.persons, companies: world.loaded.companies, elapsed_ms: world.loaded.elapsed_ms },
          'demo world loaded into the empty lake',
        );
      }
      sampleUsername = world.sampleUsername;
    }
    redis = config.redisUrl ? await connectRedis(config, logger) : undefined;
    if (redis) opened.push(() => redis!.quit().catch(() => redis!.disconnect()));
    // Requests get a pool of their own whose statements and connection waits are bounded (a stalled
    // or stopped database answers 503 within the timeouts); migrations and the demo load above use
    // the unbounded one.
    requestKnex = createKnex(db.url, config.dbPoolMax, {
      statementTimeoutMs: config.dbStatementTimeoutMs,
      acquireTimeoutMs: config.dbAcquireTimeoutMs,
    });
    opened.push(() => requestKnex.destroy());
    const metrics = new Metrics();
    reads = config.readReplicas.urls.length ? await openReadReplicas(config, requestKnex, logger) : undefined;
    if (reads) opened.push(() => reads!.close());
    reads?.observe(metrics.registry);
    live = await createLiveSource(config, { db: db.knex, logger, observer: metrics.source });
    opened.push(() => live.close());
    app = await createApp({ config, knex: requestKnex, logger, redis, databaseUrl: db.url, liveSource: live.source, metrics, reads });
    opened.push(() => app.close());
    worker = config.refresh.inProcess
      ? new RefreshWorker({ db: db.knex, source: live.source, config: config.refresh, logger, metrics })
      : undefined;
    deliveries = config.webhooks.delivery.inProcess ? createDeliveryWorker(config, { databaseUrl: db.url, logger, metrics }) : undefined;
    if (deliveries) opened.push(() => deliveries!.stop());
    // Always here, whatever runs the other jobs: the feed this server answers needs its positions
    // (one pass at a time per database, however many servers and workers run one).
    sequencer = createFeedSequencer(db.url, { logger, metrics });
    opened.push(() => sequencer!.stop());
    listJobs = config.jobs.inProcess ? createListJobWorker(config, { databaseUrl: db.url, logger }) : undefined;
    if (listJobs) opened.push(() => listJobs!.stop());
    server = createHttpServer(app, {
      requestTimeoutMs: config.httpRequestTimeoutMs,
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      maxConnections: config.httpMaxConnections,
    });
    await listen(server, config.host, config.port);
  } catch (err) {
    await closeOpened();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  const { version, commit } = buildInfo();
  logger.info(
    { url: `${url}/api/v1`, version, commit, node: process.versions.node, rate_limit_store: app.rateLimits.store, tracing: tracingDescription(), access_log: config.accessLog },
    'listening',
  );

  worker?.start();
  if (!worker) logger.info('refresh worker not started here (REFRESH_IN_PROCESS=0): run `enrich worker`');
  deliveries?.start();
  sequencer!.start();
  listJobs?.start();
  if (!listJobs) logger.info('list job worker not started here (JOB_WORKER_IN_PROCESS=0): run `enrich worker`');
  if (!deliveries) logger.info('webhook delivery worker not started here (WEBHOOK_DELIVERY_IN_PROCESS=0): run `enrich worker`');

  if (opts.demo) {
    const demo = await ensureDemoWorkspace(db.knex);
    printDemo(url, demo, sampleUsername, live);
    const link = await createSignInLink(db.knex, { workspaceId: demo.workspace_id });
    process.stdout.write(`Dashboard: open this single-use sign-in link (valid 15 minutes; \`npm run enrich -- dashboard link --workspace ${demo.workspace_id}\` prints another):\n  ${signInUrl(url, link.token)}\n\n`);
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down: draining requests');
      await closeServer(server);
      await worker?.stop();
      await deliveries?.stop();
      await sequencer?.stop();
      await listJobs?.stop();
      await live.close();
      await app.close();
      await redis?.quit().catch(() => undefined);
      await reads?.close();
      await requestKnex.destroy();
      await db.close();
      // Last: the spans of the shutdown's own work are flushed too.
      await stopTracing();
      logger.info('stopped');
    })());
  return { server, url, stop };
}

/**
 * The read replicas of DATABASE_READ_URL with the request pool's bounds; probed once before the
 * server listens (a standby that does not answer yet only means reads start on the primary).
 */
async function openReadReplicas(config: Config, primary: ReturnType<typeof createKnex>, logger: Logger): Promise<ReadReplicas> {
  const { readReplicas: r } = config;
  const reads = new ReadReplicas(primary, r.urls, {
    maxLagSeconds: r.maxLagSeconds,
    probeMs: r.probeMs,
    probeTimeoutMs: config.readinessTimeoutMs,
    poolMax: r.poolMax,
    timeouts: { statementTimeoutMs: config.dbStatementTimeoutMs, acquireTimeoutMs: config.dbAcquireTimeoutMs },
    onChange: (replica, state, detail) =>
      state === 'in_use'
        ? logger.info({ replica, ...detail }, 'read replica in use: lake reads go to it')
        : logger.warn({ replica, state, ...detail, max_lag_seconds: r.maxLagSeconds }, 'read replica not used: lake reads go to the primary until it recovers'),
  });
  await reads.start();
  logger.info(
    { replicas: r.urls.map((u, i) => `replica_${i + 1}=${new URL(u).host}${new URL(u).pathname}`), max_lag_seconds: r.maxLagSeconds, pin_ms: reads.pinMs },
    'read replicas configured',
  );
  return reads;
}

/**
 * The shared rate-limit store. Every command gives up after REDIS_COMMAND_TIMEOUT_MS (a stopped
 * Redis would otherwise hold each request until TCP gives up), commands are never queued while the
 * connection is down (they fail at once and the in-memory fallback answers), and the client
 * reconnects forever, at most every 2 s. The breaker in domain/ratelimit/sharedStore.ts decides
 * when requests use Redis again, and logs both transitions.
 */
async function connectRedis(config: Config, logger: Logger): Promise<Redis> {
  const redis = new Redis(config.redisUrl!, {
    commandTimeout: config.redisCommandTimeoutMs,
    connectTimeout: Math.max(1000, config.redisCommandTimeoutMs),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    keepAlive: 10_000,
  });
  let lastError = '';
  redis.on('error', (err) => {
    // One line per distinct error, not one per reconnect attempt.
    if (err.message !== lastError) logger.debug({ err: err.message }, 'redis connection error');
    lastError = err.message;
  });
  redis.on('ready', () => (lastError = ''));
  // Start with shared limits when Redis answers within a moment; otherwise start anyway (in-memory
  // limits until it does).
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => redis.once('ready', () => resolve(true))),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref()),
  ]);
  if (!ready) logger.warn('redis did not answer at start: rate limits are per instance until it does');
  return redis;
}

/** A listen error in one line the operator can act on (EADDRINUSE, EACCES), the original as its cause. */
export class PortUnavailableError extends Error {
  constructor(host: string, port: number, err: NodeJS.ErrnoException) {
    const why =
      err.code === 'EADDRINUSE'
        ? 'is already in use by another process: stop it or set PORT to a free port'
        : err.code === 'EACCES'
          ? 'may not be opened by this user: choose a PORT above 1023'
          : `cannot be opened (${err.code ?? err.message})`;
    super(`port ${port} on ${host} ${why}`, { cause: err });
  }
}

function listen(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(new PortUnavailableError(host, port, err));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Fails with PortUnavailableError when host:port cannot be listened on now (port 0: any free port, nothing to check). */
async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await listen(probe as unknown as http.Server, host, port);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

async function closeServer(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
}

function printDemo(url: string, demo: Awaited<ReturnType<typeof ensureDemoWorkspace>>, username: string | undefined, live: LiveWiring): void {
  const key = demo.api_key ?? 'ik_live_...';
  const auth = `-H "Authorization: Bearer ${key}"`;
  const head = demo.api_key
    ? ['', `Demo workspace ${demo.workspace_id} created. Its API key is shown only this once:`, '', `  ${demo.api_key}`, '']
    : [
        '',
        `Demo workspace ${demo.workspace_id} already exists (its key was printed when it was created).`,
        `New key: npm run enrich -- key create --workspace ${demo.workspace_id} --json`,
        '',
      ];
  const tryIt = [
    'Try it:',
    `  curl -s ${auth} ${url}/api/v1/account`,
    ...(username ? [`  curl -s ${auth} "${url}/api/v1/person?username=${username}"`] : []),
  ];
  const sim = live.simulator;
  const loaded = sim ? loadDemo().DEMO_LOADED_PERSONS : 0;
  const unloaded = sim && sim.world.persons > loaded ? sim.world.person(loaded).username : undefined;
  const liveLines = sim
    ? [
        '',
        `The world is changing: the live-source simulator runs ${sim.speed} simulated seconds per second, and the refresh`,
        'worker re-verifies the lake continuously. Within a minute you should see:',
        ...(username ? [`  curl -s ${auth} "${url}/api/v1/person/check?username=${username}"     # fetched_at moves`] : []),
        '  npm run enrich -- changes --tail                                 # change-log entries as they are detected',
        `  curl -s ${auth} "${url}/api/v1/person/job-changes?within_months=1"`,
        ...(unloaded ? [`  curl -s ${auth} "${url}/api/v1/person/realtime?username=${unloaded}"   # not in the lake: fetched live, metered`] : []),
        `  curl -s -X POST ${live.control?.url}/control/advance -d '{"days":30}'   # jump the simulated clock ahead`,
      ]
    : ['', 'No live source (LIVE_SOURCE_URL or LIVE_SOURCE=simulator): realtime answers 503 and the refresh idles.'];
  process.stdout.write([...head, ...tryIt, ...liveLines, ''].join('\n') + '\n');
}

export function runUntilSignal(running: RunningServer): void {
  const onSignal = () => {
    running.stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

if (require.main === module) {
  startServer({ demo: true })
    .then(runUntilSignal)
    .catch((err) => {
      process.stderr.write(`failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
