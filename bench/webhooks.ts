/**
 * npm run bench:webhooks — webhook delivery, change to receiver, with 1 and then 2 delivery worker
 * processes (the real DeliveryWorker with the environment's settings; defaults: 200 ms poll, 64 in
 * flight, 8 per destination), to HTTPS receivers on loopback (self-signed certificate trusted through
 * WEBHOOK_CA_FILE; WEBHOOKS_ALLOW_LOOPBACK on, as for any local receiver).
 *
 * - latency: changes are written through the lake writer (each a real change-log entry whose
 *   events are enqueued in the same transaction) at a steady pace while the workers run; the
 *   latency of a delivery is its arrival at the receiver minus the commit of its change.
 * - throughput: a backlog of events is enqueued the same way with the workers stopped, then the
 *   workers start; deliveries/s is the backlog over the time from start to the last arrival.
 *
 * Everything shares the machine: PostgreSQL, the receivers, the workers and this process.
 * Options: --persons=2000 --destinations=4 --latency-seconds=10 --rate=100 --workers=1,2
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../src/config';
import { createKnex, migrateLatest } from '../src/db/knex';
import type { PersonRecord } from '../src/model/records';
import { writeRecords } from '../src/domain/lake/write/writer';
import { createMonitor } from '../src/domain/monitors/monitors';
import { ServerKeys } from '../src/domain/webhooks/secrets';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { createWorld } from '../src/world';
import { AS_OF, benchDatabaseUrl, intArg, percentile, stringArg } from './lib';

const SERVER_KEY = Buffer.alloc(32, 9).toString('base64');

function certificate(): { key: string; cert: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-bench-cert-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

interface WorkerProcess {
  ready: Promise<void>;
  stop(): Promise<unknown>;
}

function startWorker(env: NodeJS.ProcessEnv): WorkerProcess {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'servers', 'deliveryWorker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  let report: (r: unknown) => void;
  const done = new Promise((resolve) => (report = resolve));
  const ready = new Promise<void>((resolve) =>
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { ready?: boolean; totals?: unknown };
      if (msg.ready) resolve();
      if (msg.totals) report(msg.totals);
    }),
  );
  return { ready, stop: () => (child.kill('SIGTERM'), done) };
}

async function main() {
  const persons = intArg('persons', 2000);
  const destinations = intArg('destinations', 4);
  const latencySeconds = intArg('latency-seconds', 10);
  const rate = intArg('rate', 100);
  const counts = (stringArg('workers') ?? '1,2').split(',').map(Number);

  const db = await benchDatabaseUrl('enrich_bench_webhooks');
  const knex = createKnex(db.url, 8);
  await migrateLatest(knex);
  await knex.raw('truncate monitor_deliveries, monitors, persons, person_positions, person_educations, person_refresh, change_log cascade');

  // Receivers: `destinations` HTTPS servers, each its own host:port (the per-destination cap's unit).
  const { key, cert, certFile } = certificate();
  const arrivals = new Map<string, number>();
  let onArrival: () => void = () => undefined;
  const servers = await Promise.all(
    Array.from({ length: destinations }, async () => {
      const server = https.createServer({ key, cert }, (req, res) => {
        req.resume();
        req.on('end', () => {
          const id = req.headers['webhook-id'] as string;
          if (!arrivals.has(id)) arrivals.set(id, performance.now());
          res.writeHead(204).end();
          onArrival();
        });
      });
      server.keepAliveTimeout = 10_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );

  // The lake and one monitor per person, spread over the destinations.
  const world = createWorld({ persons, companies: Math.max(10, Math.round(persons / 10)), seed: 7, asOf: AS_OF });
  const records = Array.from({ length: persons }, (_, i) => world.person(i) as PersonRecord);
  for (let i = 0; i < records.length; i += 500) await writeRecords(knex, 'person', records.slice(i, i + 500));
  const { workspace_id } = await createWorkspace(knex, { name: 'bench-webhooks', rateLimit: 100_000, active: true });
  const deps = {
    db: knex,
    keys: new ServerKeys(Buffer.from(SERVER_KEY, 'base64')),
    resolveHost: async () => ['127.0.0.1'],
    ssrf: { allowLoopback: true },
    maxPerWorkspace: 1_000_000,
  };
  for (let i = 0; i < records.length; i++) {
    const port = (servers[i % destinations]!.address() as AddressInfo).port;
    await createMonitor(deps, workspace_id, {
      type: 'person',
      subject_url: `https://www.linkedin.com/in/${records[i]!.username}`,
      webhook_url: `https://127.0.0.1:${port}/hook`,
      events: ['person.location_changed'],
    });
  }

  // One change per person per call: a new city, written through the lake writer.
  let generation = 0;
  const committedAt = new Map<string, number>();
  async function change(batch: PersonRecord[]): Promise<void> {
    generation++;
    const changed = batch.map((p) => ({ ...p, geo_city: `Bench City ${generation}`, fetched_at: new Date().toISOString() }));
    const before = Number((await knex('change_log').max<{ max: number }[]>({ max: 'id' }))[0]!.max ?? 0);
    await writeRecords(knex, 'person', changed, { origin: 'refresh' });
    const at = performance.now();
    const ids = await knex('monitor_deliveries').join('change_log', 'change_log.id', 'monitor_deliveries.change_id').where('change_log.id', '>', before).pluck('monitor_deliveries.id');
    for (const id of ids) committedAt.set(id, at);
  }

  const env = {
    DATABASE_URL: db.url,
    WEBHOOKS_ALLOW_LOOPBACK: '1',
    WEBHOOK_CA_FILE: certFile,
    WEBHOOK_SECRET_KEY: SERVER_KEY,
    LOG_LEVEL: 'error',
  };
  const lines: string[] = [];
  try {
    for (const count of counts) {
      // Latency: changes at `rate` per second while the workers run.
      arrivals.clear();
      committedAt.clear();
      const workers = Array.from({ length: count }, () => startWorker(env));
      await Promise.all(workers.map((w) => w.ready));
      const perTick = Math.max(1, Math.round(rate / 10));
      let cursor = 0;
      const until = Date.now() + latencySeconds * 1000;
      while (Date.now() < until) {
        const tick = Date.now();
        const batch = Array.from({ length: perTick }, () => records[cursor++ % records.length]!);
        await change(batch);
        const wait = 100 - (Date.now() - tick);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await waitFor(() => [...committedAt.keys()].every((id) => arrivals.has(id)), 60_000);
      const latencies = [...committedAt].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
      await Promise.all(workers.map((w) => w.stop()));

      // Throughput: a backlog enqueued with the workers stopped, then drained.
      arrivals.clear();
      committedAt.clear();
      for (let i = 0; i < records.length; i += 500) await change(records.slice(i, i + 500));
      const backlog = committedAt.size;
      const drainers = Array.from({ length: count }, () => startWorker(env));
      await Promise.all(drainers.map((w) => w.ready));
      const started = performance.now();
      await waitFor(() => arrivals.size >= backlog, 300_000);
      const last = Math.max(...arrivals.values());
      const perSecond = backlog / ((last - started) / 1000);
      await Promise.all(drainers.map((w) => w.stop()));

      const line =
        `${count} worker(s): change→delivery latency p50 ${Math.round(percentile(latencies, 50))} ms, p95 ${Math.round(percentile(latencies, 95))} ms ` +
        `(${latencies.length} deliveries at ~${rate}/s); sustained ${Math.round(perSecond)} deliveries/s (backlog of ${backlog} to ${destinations} destinations)`;
      lines.push(line);
      process.stderr.write(`${line}\n`);
    }
  } finally {
    for (const s of servers) s.closeAllConnections(), s.close();
    await knex.destroy();
    await db.stop();
  }
  const d = loadConfig().webhooks.delivery;
  const settings = `WEBHOOK_CONCURRENCY=${d.concurrency} WEBHOOK_PER_DESTINATION=${d.perDestination} WEBHOOK_POLL_MS=${d.pollMs}`;
  process.stdout.write([`bench:webhooks  ${persons} monitors over ${destinations} HTTPS receivers on loopback; ${settings}`, ...lines, ''].join('\n'));
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not all deliveries arrived within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
