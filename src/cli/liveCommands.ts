/** The live half's commands: worker, live-sim, changes. */
import http from 'node:http';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig } from '../config';
import { migrateLatest, openDatabase } from '../db/knex';
import { listChangeLog } from '../domain/refresh/changes';
import { Metrics } from '../http/metrics';
import { RefreshWorker } from '../jobs/refreshWorker';
import { createLiveSource } from '../live';
import { createLogger } from '../logger';
import { defaultAsOf } from '../world';
import { DEFAULT_RATES, type EvolutionRates } from '../world/simulator/evolution';
import { startSimulatorServer } from '../world/simulator/server';
import { Simulator } from '../world/simulator/simulator';
import { print, withDatabase } from './common';

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
    if (!key || !(key in DEFAULT_RATES) || n === undefined || !/^[0-9]*\.?[0-9]+$/.test(n)) {
      throw new InvalidArgumentError(`like job=0.01,headcount=0.1 with names ${Object.keys(DEFAULT_RATES).join(', ')}`);
    }
    out[key] = Number(n);
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerLiveCommands(program: Command): void {
  program
    .command('worker')
    .description(
      'Run the background refresh: re-verify the lake against the live source (LIVE_SOURCE_URL or LIVE_SOURCE=simulator), oldest first, and log changes',
    )
    .option('--once', 'refresh everything due once, print the figures and exit')
    .option('--metrics-port <n>', 'serve Prometheus metrics on 127.0.0.1:<n>/metrics', nonNegativeInt)
    .option('--json', 'with --once: machine-readable output')
    .action(async (opts: { once?: boolean; metricsPort?: number; json?: boolean }) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const db = await openDatabase(config);
      await migrateLatest(db.knex);
      const metrics = new Metrics();
      const live = await createLiveSource(config, { db: db.knex, logger, observer: metrics.source });
      const worker = new RefreshWorker({ db: db.knex, source: live.source, config: config.refresh, logger, metrics });
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
      };
      if (opts.once) {
        try {
          const report = await worker.runRound();
          print(Boolean(opts.json), report, `Refreshed ${report.changed + report.unchanged} records (${report.changed} changed, ${report.changes} change-log entries, ${report.notFound} not found, ${report.unavailable} unavailable)`);
        } finally {
          await shutdown();
        }
        return;
      }
      worker.start();
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
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
    .option('--rates <list>', `changes per entity per simulated day, e.g. job=0.01,headcount=0.1 (defaults: ${Object.entries(DEFAULT_RATES).map(([k, v]) => `${k}=${Math.round(v * 1e5) / 1e5}`).join(',')})`, ratesOption)
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
        const asOf = opts.asOf ?? defaultAsOf();
        const startAt = opts.startAt ? new Date(opts.startAt) : undefined;
        if (startAt && Number.isNaN(startAt.getTime())) throw new InvalidArgumentError('--start-at must be an ISO 8601 date-time');
        const sim = new Simulator({
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
        const server = await startSimulatorServer(sim, { port: opts.port, token: opts.token });
        // One line on stdout that scripts (and tests) read: where it listens.
        process.stdout.write(`${JSON.stringify({ url: server.url, protocol_url: server.protocolUrl, ...sim.state() })}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
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
      const line = (c: Awaited<ReturnType<typeof listChangeLog>>[number]) =>
        opts.json
          ? JSON.stringify(c)
          : `#${c.id} ${c.detected_at} ${c.event} ${c.subject_id ?? '(withdrawn)'} [${c.origin}] ${JSON.stringify(c.diff)}`;
      await withDatabase(async (knex) => {
        let entries = opts.tail && opts.after === undefined
          ? (await listChangeLog(knex, { limit: opts.limit, newest: true, subjectId: opts.subject })).reverse()
          : await listChangeLog(knex, { afterId: opts.after, limit: opts.limit, subjectId: opts.subject });
        for (const c of entries) process.stdout.write(`${line(c)}\n`);
        if (!opts.tail) return;
        let last = entries[entries.length - 1]?.id ?? opts.after ?? 0;
        let stopped = false;
        process.once('SIGINT', () => (stopped = true));
        while (!stopped) {
          await sleep(1000);
          entries = await listChangeLog(knex, { afterId: last, limit: 500, subjectId: opts.subject });
          for (const c of entries) process.stdout.write(`${line(c)}\n`);
          last = entries[entries.length - 1]?.id ?? last;
        }
      });
    });
}
