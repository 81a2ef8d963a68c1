/** Shared benchmark plumbing: servers in child processes, autocannon rounds, medians. */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { loadConfig } from '../src/config';
import { createKnex, ensureDatabase, migrateLatest, type Knex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { databaseUrl, startEmbeddedPostgres } from '../src/db/embedded';
import { seedLake, type SeedProgress } from '../src/world/seed';
import { createWorld } from '../src/world';
import { importLake } from './lakeImport';
import { nameKey } from '../src/world/matchQueries';

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Server processes still running: a bench that fails part-way (a server of a --base that does not
 * start, say) exits with the others already listening, and they must not outlive it (they would
 * keep polling the database and load the machine for the next bench).
 */
const liveServers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveServers) child.kill('SIGTERM');
});

/** Runs a bench/servers/*.ts script under tsx (of this checkout, or of `root`) and waits for the {"url"} line it prints. */
export function startServerProcess(script: string, env: NodeJS.ProcessEnv = {}, root = path.join(__dirname, '..')): Promise<Server> {
  const file = path.join(root, 'bench', 'servers', script);
  if (!existsSync(file)) return Promise.reject(new Error(`${file} not found: --base takes the directory of another checkout`));
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  liveServers.add(child);
  child.once('exit', () => liveServers.delete(child));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface Round {
  requestsPerSecond: number;
  /** Latency percentiles in ms, computed from every response of the run. */
  p50: number;
  p95: number;
  p99: number;
  /** Responses received in the run. */
  total: number;
  non2xx: number;
  errors: number;
  /** Responses by status code. */
  statuses: Record<number, number>;
}

/** An autocannon client, as its 'response' event passes it (requestIterator is internal). */
export interface CannonClient {
  requestIterator?: { currentRequestIndex?: number };
}

export async function measure(
  url: string,
  opts: {
    seconds: number;
    connections: number;
    headers?: Record<string, string>;
    requests?: autocannon.Request[];
    /** Called for every response with its latency in ms, e.g. to split a mixed run by request. */
    onResponse?: (client: CannonClient, status: number, ms: number) => void;
  },
): Promise<Round> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: opts.connections, duration: opts.seconds, headers: opts.headers, requests: opts.requests },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (client, status, _bytes, ms) => {
      latencies.push(ms);
      statuses[status] = (statuses[status] ?? 0) + 1;
      opts.onResponse?.(client as unknown as CannonClient, status, ms);
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: result.requests.average,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    total: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses,
  };
}

/** The nearest-rank percentile of values sorted ascending (NaN when there are none). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function intArg(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}

export function stringArg(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3);
}

export function flagArg(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/**
 * The benchmark lake: its own database, built once by ensureLake and reused by every bench.
 * BENCH_DATABASE names another one (one lake size per database; bench:scale keeps two).
 */
export const BENCH_DATABASE = process.env.BENCH_DATABASE || 'enrich_bench';
export const SEED = 1;
export const AS_OF = new Date('2026-11-01T00:00:00Z');

/** The bench database on DATABASE_URL's server, or on the embedded PostgreSQL under ENRICH_DATA_DIR. */
export async function benchDatabaseUrl(name = BENCH_DATABASE): Promise<{ url: string; stop: () => Promise<void> }> {
  const config = loadConfig();
  if (config.databaseUrl) {
    const admin = new URL(config.databaseUrl);
    await ensureDatabase(admin.toString(), name);
    admin.pathname = `/${name}`;
    return { url: admin.toString(), stop: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({ dir: `${config.dataDir}/postgres`, port: config.embeddedPgPort });
  await ensureDatabase(embedded.adminUrl, name);
  return { url: databaseUrl(embedded.adminUrl, name), stop: () => embedded.stop() };
}

/** `enrich live-sim` of the bench world (seed SEED, as of AS_OF) in a child process; resolves once it listens. */
export function startSimulatorProcess(persons: number, companies: number, extra: string[] = []): Promise<Server & { protocolUrl: string }> {
  const child = spawn(
    process.execPath,
    [path.join(__dirname, '..', 'bin', 'enrich.js'), 'live-sim', '--persons', String(persons), '--companies', String(companies),
      '--seed', String(SEED), '--as-of', AS_OF.toISOString().slice(0, 10), '--speed', '0', '--port', '0', ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`live-sim exited with ${code} before listening`)));
    lines.once('line', (line) => {
      const { url, protocol_url } = JSON.parse(line) as { url: string; protocol_url: string };
      resolve({
        url,
        protocolUrl: protocol_url,
        child,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** How ensureLake builds a lake: seedLake's writer, or the initial-load import (bench/lakeImport.ts). */
export type LakeBuildMode = 'seed' | 'import';

/** The import from 100,000 persons on (1M: about 41 min quiet against seedLake's 1.5 h), seedLake below. */
export const defaultLakeBuildMode = (persons: number): LakeBuildMode => (persons >= 100_000 ? 'import' : 'seed');

/**
 * Builds the lake unless the marker table says this size and seed are already there. Both builds
 * give the same lake (the same counts and row digests: bench/lakeImport.ts); the scale lake loads
 * every person of the world.
 */
export async function ensureLake(knex: Knex, persons: number, companies: number, build: LakeBuildMode = defaultLakeBuildMode(persons)): Promise<void> {
  await knex.raw('create table if not exists bench_lake (persons integer, companies integer, seed integer)');
  const built = await knex('bench_lake').first();
  if (built && built.persons === persons && built.companies === companies && built.seed === SEED) {
    // The database this knex is on (bench:scale keeps one per size), not BENCH_DATABASE's name.
    const { rows } = await knex.raw<{ rows: { db: string }[] }>('select current_database() as db');
    process.stderr.write(`reusing the lake in database ${rows[0]!.db}: ${persons} persons, ${companies} companies\n`);
    return;
  }
  await knex.raw('truncate persons, person_positions, person_educations, person_refresh, companies, company_refresh, change_log, bench_lake');
  process.stderr.write(`building the lake by ${build}: ${persons} persons, ${companies} companies (once; later runs reuse it)\n`);
  let last = 0;
  const progress = (p: SeedProgress) => {
    if (Date.now() - last > 10_000 || p.done === p.total) {
      last = Date.now();
      process.stderr.write(`  ${p.kind}: ${p.done}/${p.total}\n`);
    }
  };
  const started = Date.now();
  if (build === 'import') {
    await importLake(knex, { world: createWorld({ persons, companies, seed: SEED, asOf: AS_OF }), seed: SEED, asOf: AS_OF }, persons, progress);
  } else {
    await seedLake(knex, { persons, companies, seed: SEED, asOf: AS_OF }, progress);
  }
  await knex.raw('vacuum analyze persons, person_positions, person_educations, companies, change_log');
  await knex('bench_lake').insert({ persons, companies, seed: SEED });
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(`built in ${seconds.toFixed(0)} s (${Math.round(persons / seconds)} persons/s incl. companies)\n`);
}

/** CPU time (user + system, all threads) a process has used so far, in µs (Linux /proc). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) : utime is the 14th field, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / CLOCK_TICKS;
}
/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS = 100;

/** A measured run of one server process, with its CPU time per answered request. */
export async function measureServer(
  server: Server,
  opts: Parameters<typeof measure>[1],
  /** The server's CPU use while idle (idleCpuMicrosPerSecond): its background loops, taken out of `netCpuPerRequestMicros`. */
  idleMicrosPerSecond = 0,
): Promise<Round & { cpuPerRequestMicros: number; netCpuPerRequestMicros: number }> {
  const before = cpuMicros(server.child.pid!);
  const started = performance.now();
  const round = await measure(server.url, opts);
  const used = cpuMicros(server.child.pid!) - before;
  const background = (idleMicrosPerSecond * (performance.now() - started)) / 1000;
  return {
    ...round,
    cpuPerRequestMicros: round.total ? used / round.total : NaN,
    netCpuPerRequestMicros: round.total ? Math.max(0, used - background) / round.total : NaN,
  };
}

/**
 * A server's CPU time per second while it answers nothing (µs/s): what its background loops cost
 * (`enrich serve` runs the event feed's sequencer, and by default the refresh, delivery and list
 * job workers, each polling the database). On a busy machine, where few requests are answered per
 * second, that fixed cost is a large part of "CPU per request"; the benches print both.
 */
export async function idleCpuMicrosPerSecond(server: Server, ms = 3000): Promise<number> {
  const before = cpuMicros(server.child.pid!);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ((cpuMicros(server.child.pid!) - before) * 1000) / (performance.now() - started);
}

/** The settings every benchmark prints with its figures (issue 14): version and planner/memory settings. */
export const REPORTED_SETTINGS = [
  'shared_buffers', 'effective_cache_size', 'work_mem', 'maintenance_work_mem', 'random_page_cost',
  'effective_io_concurrency', 'max_worker_processes', 'max_parallel_workers', 'max_parallel_workers_per_gather',
  'max_parallel_maintenance_workers', 'jit', 'max_connections',
] as const;

export async function postgresSettingsLine(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const version = (await client.query<{ v: string }>("select current_setting('server_version') as v")).rows[0].v;
    const { rows } = await client.query<{ name: string; setting: string; unit: string | null }>(
      'select name, current_setting(name) as setting from pg_settings where name = any($1) order by name',
      [REPORTED_SETTINGS],
    );
    return `PostgreSQL ${version}: ${rows.map((r) => `${r.name}=${r.setting}`).join(' ')}`;
  } finally {
    await client.end();
  }
}

/**
 * A fresh copy of database `url` named `target` (dropped first if it exists), by CREATE DATABASE
 * ... TEMPLATE: a bench that writes the lake (bench:refresh) runs on a copy, so every run starts
 * from the same lake and measures the same path. The source must have no open connection (close
 * yours first; another bench using it makes this fail with 55006, said in the message).
 * FILE_COPY (PostgreSQL 15+) copies the files instead of WAL-logging every block: much faster.
 */
export async function cloneDatabase(url: string, target: string): Promise<{ url: string; ms: number; drop: () => Promise<void> }> {
  const source = new URL(url).pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), statement_timeout: 30 * 60_000, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  const started = Date.now();
  try {
    const version = Number((await client.query<{ v: string }>("select current_setting('server_version_num') as v")).rows[0]!.v);
    await client.query(`drop database if exists ${pg.escapeIdentifier(target)} with (force)`);
    await client.query(
      `create database ${pg.escapeIdentifier(target)} template ${pg.escapeIdentifier(source)}${version >= 150000 ? ' strategy file_copy' : ''}`,
    ).catch((err: { code?: string; message: string }) => {
      if (err.code === '55006') throw new Error(`cannot copy ${source}: another session uses it (another bench?): ${err.message}`);
      throw err;
    });
  } finally {
    await client.end();
  }
  const ms = Date.now() - started;
  const copy = new URL(url);
  copy.pathname = `/${target}`;
  return {
    url: copy.toString(),
    ms,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin.toString(), statement_timeout: 10 * 60_000, connectionTimeoutMillis: 10_000 });
      c.on('error', () => undefined);
      await c.connect();
      try {
        await c.query(`drop database if exists ${pg.escapeIdentifier(target)} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * The name keys (nameKey(first_name, last_name)) of the persons the lake holds, read from the lake:
 * the absent classes must not make up a name someone there wears. The same set as nameKey over the
 * world's persons 0..loaded-1 (the lake holds exactly those), without generating them again (at 1M
 * that took most of a quarter of an hour on a busy machine; one read takes seconds).
 */
export async function lakeNameKeys(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 300_000, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ f: string | null; l: string | null }>("select record->>'first_name' as f, record->>'last_name' as l from persons");
    return new Set(rows.map((r) => nameKey(r.f ?? '', r.l ?? '')));
  } finally {
    await client.end();
  }
}

/** The machine's 1-, 5- and 15-minute load averages, as the benches print them. */
export function loadAverages(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** A bench's closing line: the load at its start and at its end, the cores, the time. */
export function loadAverageLine(atStart: string): string {
  return `Load average at the start: ${atStart}; at the end: ${loadAverages()} (${os.cpus().length} cores); ${new Date().toISOString()}`;
}

/**
 * V8 flags for the processes counted under callgrind (bench:tracing-instructions, bench:tracing-pipeline --measure=instructions), so that the same requests cost the same instructions:
 * no background threads (concurrent JIT compilation, concurrent marking and sweeping are all
 * counted, and how much of their work falls into a window depends on thread scheduling), a fixed
 * young generation (scavenges at the same allocation points in every window) and the garbage
 * collector's predictable schedule (no heap growing or shrinking on idle notifications or timers).
 */
export const DETERMINISTIC_V8_FLAGS = ['--single-threaded', '--predictable-gc-schedule', '--min-semi-space-size=16', '--max-semi-space-size=16'];

/**
 * A lookup bench's lake: the database migrated and its lake built (ensureLake), a workspace whose
 * rate limit never bites, and the usernames the bench asks for (`usernames`: a statement that
 * selects a `username` column, so each bench keeps its own sample).
 */
export async function prepareLookupLake(
  url: string, persons: number, companies: number, usernames: string,
): Promise<{ key: string; usernames: string[] }> {
  const knex = createKnex(url);
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, companies);
    const key = (await createWorkspace(knex, { name: `bench-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
    const { rows } = await knex.raw<{ rows: { username: string }[] }>(usernames);
    return { key, usernames: rows.map((r) => r.username) };
  } finally {
    await knex.destroy();
  }
}
