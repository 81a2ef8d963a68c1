/**
 * Process wiring: config -> logger -> database (embedded unless DATABASE_URL) -> migrations ->
 * optional Redis -> app -> listen; SIGINT/SIGTERM drain requests, then close Redis and the database.
 */
import http from 'node:http';
import Redis from 'ioredis';
import { createApp } from './app';
import { loadConfig, type Config } from './config';
import { migrateLatest, openDatabase } from './db/knex';
import { createLogger, type Logger } from './logger';
import { ensureDemoWorld } from './world/demo';
import { ensureDemoWorkspace } from './domain/workspaces/demo';

export interface RunningServer {
  server: http.Server;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(opts: { demo?: boolean; config?: Config } = {}): Promise<RunningServer> {
  const config = opts.config ?? loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openDatabase(config, (line) => logger.debug({ postgres: line }));
  logger.info({ database: db.embedded ? `embedded (${config.dataDir}/postgres)` : 'DATABASE_URL' }, 'database ready');
  const applied = await migrateLatest(db.knex);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');

  // The demo serves real profiles from its first request: an empty lake gets a small world first.
  let sampleUsername: string | undefined;
  if (opts.demo) {
    const world = await ensureDemoWorld(db.knex);
    if (world.loaded) {
      logger.info(
        { persons: world.loaded.persons, companies: world.loaded.companies, elapsed_ms: world.loaded.elapsed_ms },
        'demo world loaded into the empty lake',
      );
    }
    sampleUsername = world.sampleUsername;
  }

  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : undefined;
  const app = await createApp({ config, knex: db.knex, logger, redis, databaseUrl: db.url });
  const server = http.createServer(app.koa.callback());
  // Keep-alive longer than common load balancer idle timeouts so they never reuse a socket we closed.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info({ url: `${url}/api/v1`, rate_limit_store: app.rateLimits.store }, 'listening');

  if (opts.demo) {
    const demo = await ensureDemoWorkspace(db.knex);
    printDemo(url, demo, sampleUsername);
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info('shutting down: draining requests');
      await closeServer(server);
      await app.close();
      await redis?.quit().catch(() => undefined);
      await db.close();
      logger.info('stopped');
    })());
  return { server, url, stop };
}

function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error; rate limits fall back to this instance'));
  return redis;
}

async function closeServer(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(force);
}

function printDemo(url: string, demo: Awaited<ReturnType<typeof ensureDemoWorkspace>>, username?: string): void {
  const lines = demo.api_key
    ? [
        '',
        `Demo workspace ${demo.workspace_id} created. Its API key is shown only this once:`,
        '',
        `  ${demo.api_key}`,
        '',
        'Try it:',
        `  curl -s -H "Authorization: Bearer ${demo.api_key}" ${url}/api/v1/account`,
        ...(username ? [`  curl -s -H "Authorization: Bearer ${demo.api_key}" "${url}/api/v1/person?username=${username}"`] : []),
        '',
      ]
    : [
        '',
        `Demo workspace ${demo.workspace_id} already exists (its key was printed when it was created).`,
        `New key: npx enrich key create --workspace ${demo.workspace_id} --json`,
        '',
      ];
  process.stdout.write(lines.join('\n') + '\n');
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
