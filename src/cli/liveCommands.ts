/** The live half's commands: worker, live-sim, changes. */
import http from 'node:http';
import { InvalidArgumentError, type Command } from 'commander';
import { print, withDatabase, type CliIo } from './common';
import { load } from './lazy';

/*
 * The modules behind these commands (the worker, the simulator, the http adapter, metrics) are
 * loaded when a command runs (lazy.ts), not when the CLI starts.
 */
const lazy = {
  config: load.config,
  knex: load.database,
  world: load.world,
  changes: () => require('../domain/lake/write/changes') as typeof import('../domain/lake/write/changes'),
  metrics: () => require('../observability/metrics') as typeof import('../observability/metrics'),
  worker: () => require('../jobs/refreshWorker') as typeof import('../jobs/refreshWorker'),
  deliveryWorker: () => require('../jobs/deliveryWorker') as typeof import('../jobs/deliveryWorker'),
  feedSequencer: () => require('../jobs/feedSequencer') as typeof import('../jobs/feedSequencer'),
  listJobWorker: () => require('../jobs/listJobWorker') as typeof import('../jobs/listJobWorker'),
  live: () => require('../live') as typeof import('../live'),
  logger: () => require('../logger') as typeof import('../logger'),
  server: () => require('../world/simulator/server') as typeof import('../world/simulator/server'),
  simulator: () => require('../world/simulator/simulator') as typeof import('../world/simulator/simulator'),
};

/** The change kinds the simulator knows, with their default rates per day (kept in step with evolution.ts). */
const RATE_NAMES = ['job', 'title', 'location', 'headcount', 'name', 'hq', 'industry'] as const;
type EvolutionRates = Record<(typeof RATE_NAMES)[number], number>;

function nonNegativeInt(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function nonNegativeNumber(value: string): number {
  if (!/^[0-9]*\.?[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a non-negative number');
  return Number(value);
}

function rate(value: string): number {
  const n = Number(value);
  if (!/^[0-9]*\.?[0-9]+$/.test(value) || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

function calendarDate(value: string): Date {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) throw new InvalidArgumentError('must be a date, YYYY-MM-DD');
  return new Date(`${value}T00:00:00Z`);
}

function ratesOption(value: string): Partial<EvolutionRates> {
  const out: Record<string, number> = {};
  for (const part of value.split(',')) {
    const [key, n] = part.split('=').map((x) => x.trim());
    if (!key || !(RATE_NAMES as readonly string[]).includes(key) || n === undefined || !/^[0-9]*\.?[0-9]+$/.test(n)) {
      throw new InvalidArgumentError(`like job=0.01,headcount=0.1 with names ${RATE_NAMES.join(', ')}`);
    }
    out[key] = Number(n);
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves on SIGINT or SIGTERM (long-running commands stop cleanly on either). */
const untilSignal = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });

export function registerLiveCommands(program: Command, io: CliIo): void {
  program
    .command('worker')
    .description(
      'Run the background work: the refresh (re-verify the lake against the live source, LIVE_SOURCE_URL or LIVE_SOURCE=simulator, oldest first, and log changes) and the webhook delivery worker',
    )
    .option('--once', 'refresh everything due once, print the figures and exit')
    .option('--metrics-port <n>', 'serve Prometheus metrics on 127.0.0.1:<n>/metrics', nonNegativeInt)
    .option('--json', 'with --once: machine-readable output')
    .action(async (opts: { once?: boolean; metricsPort?: number; json?: boolean }) => {
      // Tracing first (only with OTEL_* set): the database driver and undici must load after the SDK.
      const tracing = load.tracing().startTracing(io.env);
      const config = lazy.config().loadConfig(io.env);
      const logger = lazy.logger().createLogger(config.logLevel);
      const { openDatabase, migrateLatest } = lazy.knex();
      const db = await openDatabase(config);
      await migrateLatest(db.knex);
      const metrics = new (lazy.metrics().Metrics)();
      const live = await lazy.live().createLiveSource(config, { db: db.knex, logger, observer: metrics.source });
      const worker = new (lazy.worker().RefreshWorker)({ db: db.knex, source: live.source, config: config.refresh, logger, metrics });
      let metricsServer: http.Server | undefined;
      if (opts.metricsPort !== undefined) {
        metricsServer = http.createServer(async (req, res) => {
          if (req.url !== '/metrics') return void res.writeHead(404).end();
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(await metrics.registry.metrics());
        });
        await new Promise<void>((resolve) => metricsServer!.listen(opts.metricsPort, '127.0.0.1', resolve));
      }
      const shutdown = async () => {
        await worker.stop();
        await live.close();
        metricsServer?.close();
        await db.close();
        if (tracing) await load.tracing().stopTracing();
      };
      if (opts.once) {
        try {
          const report = await worker.runRound();
          print(io, Boolean(opts.json), report, `Refreshed ${report.changed + report.unchanged} records (${report.changed} changed, ${report.changes} change-log entries, ${report.notFound} not found, ${report.unavailable} unavailable)`);
        } finally {
          await shutdown();
        }
        return;
      }
      const deliveries = lazy.deliveryWorker().createDeliveryWorker(config, { databaseUrl: db.url, logger, metrics });
      const sequencer = lazy.feedSequencer().createFeedSequencer(db.url, { logger, metrics });
      const listJobs = lazy.listJobWorker().createListJobWorker(config, { databaseUrl: db.url, logger });
      worker.start();
      deliveries.start();
      sequencer.start();
      listJobs.start();
      await untilSignal();
      await listJobs.stop();
      await sequencer.stop();
      await deliveries.stop();
      await shutdown();
    });

  program
    .command('live-sim')
    .description(
      'Serve a simulated upstream network on loopback (the live-source protocol under /v1, control endpoints under /control): the synthetic world of `enrich seed`, evolving over simulated time',
    )
    .option('--persons <n>', 'persons in the world (may be more than the lake holds)', nonNegativeInt, 1000)
    .option('--companies <n>', 'companies in the world', nonNegativeInt, 100)
    .option('--seed <n>', 'world seed (as for `enrich seed`)', nonNegativeInt, 1)
    .option('--as-of <date>', "the world's today, YYYY-MM-DD (default: today, UTC); simulated time starts there", calendarDate)
    .option('--start-at <iso>', 'simulated time at start (default: --as-of)')
    .option('--speed <n>', 'simulated seconds per wall-clock second (0: only /control/advance moves time)', nonNegativeNumber, 1)
    .option('--rates <list>', 'changes per entity per simulated day, e.g. job=0.01,headcount=0.1 (defaults: a job change every 1000 days, headcount monthly; see src/world/simulator/evolution.ts)', ratesOption)
    .option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', nonNegativeInt, 4100)
    .option('--token <token>', 'require Authorization: Bearer <token>')
    .option('--latency-ms <n>', 'added to every answer', nonNegativeNumber, 0)
    .option('--jitter-ms <n>', 'uniform extra latency', nonNegativeNumber, 0)
    .option('--error-rate <p>', 'share of calls answered 500', rate, 0)
    .option('--timeout-rate <p>', 'share of calls never answered', rate, 0)
    .option('--outage', 'answer 503 to every call until PUT /control/faults {"outage": false}')
    .action(
      async (opts: {
        persons: number;
        companies: number;
        seed: number;
        asOf?: Date;
        startAt?: string;
        speed: number;
        rates?: Partial<EvolutionRates>;
        port: number;
        token?: string;
        latencyMs: number;
        jitterMs: number;
        errorRate: number;
        timeoutRate: number;
        outage?: boolean;
      }) => {
        const asOf = opts.asOf ?? lazy.world().defaultAsOf();
        const startAt = opts.startAt ? new Date(opts.startAt) : undefined;
        if (startAt && Number.isNaN(startAt.getTime())) throw new InvalidArgumentError('--start-at must be an ISO 8601 date-time');
        const sim = new (lazy.simulator().Simulator)({
          world: { persons: opts.persons, companies: opts.companies, seed: opts.seed, asOf },
          rates: opts.rates,
          speed: opts.speed,
          startAt,
          faults: {
            latencyMs: opts.latencyMs,
            jitterMs: opts.jitterMs,
            errorRate: opts.errorRate,
            timeoutRate: opts.timeoutRate,
            outage: Boolean(opts.outage),
          },
        });
        const server = await lazy.server().startSimulatorServer(sim, { port: opts.port, token: opts.token });
        // One line on stdout that scripts (and tests) read: where it listens.
        io.stdout.write(`${JSON.stringify({ url: server.url, protocol_url: server.protocolUrl, ...sim.state() })}\n`);
        await untilSignal();
        await server.close();
      },
    );

  program
    .command('changes')
    .description('Show the change log (what the refresh and realtime write-backs detected), oldest first')
    .option('--limit <n>', 'entries to show', nonNegativeInt, 20)
    .option('--after <id>', 'only entries after this id', nonNegativeInt)
    .option('--subject <id>', 'only entries of this person or company id')
    .option('--tail', 'show the last entries, then keep printing new ones (Ctrl-C to stop)')
    .option('--json', 'one JSON object per entry')
    .action(async (opts: { limit: number; after?: number; subject?: string; tail?: boolean; json?: boolean }) => {
      const { listChangeLog } = lazy.changes();
      const line = (c: Awaited<ReturnType<typeof listChangeLog>>[number]) =>
        opts.json
          ? JSON.stringify(c)
          : `#${c.id} ${c.detected_at} ${c.event} ${c.subject_id ?? '(withdrawn)'} [${c.origin}] ${JSON.stringify(c.diff)}`;
      await withDatabase(io, async (knex) => {
        let entries = opts.tail && opts.after === undefined
          ? (await listChangeLog(knex, { limit: opts.limit, newest: true, subjectId: opts.subject })).reverse()
          : await listChangeLog(knex, { afterId: opts.after, limit: opts.limit, subjectId: opts.subject });
        for (const c of entries) io.stdout.write(`${line(c)}\n`);
        if (!opts.tail) return;
        let last = entries[entries.length - 1]?.id ?? opts.after ?? 0;
        let stopped = false;
        process.once('SIGINT', () => (stopped = true));
        while (!stopped) {
          await sleep(1000);
          entries = await listChangeLog(knex, { afterId: last, limit: 500, subjectId: opts.subject });
          for (const c of entries) io.stdout.write(`${line(c)}\n`);
          last = entries[entries.length - 1]?.id ?? last;
        }
      });
    });
}
