/**
 * A real Citus cluster for the Citus lane (test/citus/*.test.ts): one coordinator and two workers,
 * each a PostgreSQL 15 of the machine's (Debian's /usr/lib/postgresql/15) with the citus extension,
 * initdb'd into a temporary directory, listening on a free loopback port only, and removed at the
 * end. Nothing of Citus is in this repository: where the extension is not installed for that
 * PostgreSQL (CI's machine), `citusUnavailable()` says why and the lane skips.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';

export const PG_BIN = process.env.CITUS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why a cluster cannot be started here, or undefined when it can. */
export function citusUnavailable(): string | undefined {
  if (!fs.existsSync(path.join(PG_BIN, 'postgres'))) return `no PostgreSQL binaries at ${PG_BIN}`;
  const config = spawnSync(path.join(PG_BIN, 'pg_config'), ['--pkglibdir', '--sharedir'], { encoding: 'utf8' });
  if (config.status !== 0) return `pg_config of ${PG_BIN} does not answer`;
  const [lib, share] = config.stdout.trim().split('\n');
  if (!fs.existsSync(path.join(lib!, 'citus.so')) || !fs.existsSync(path.join(share!, 'extension', 'citus.control'))) {
    return `the citus extension is not installed for ${PG_BIN} (no citus.so in ${lib}); see docs/scale-out.md to install it`;
  }
  if (process.getuid?.() === 0 && spawnSync('id', ['postgres']).status !== 0) return 'running as root and no postgres user to run PostgreSQL as';
  return undefined;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user. */
function run(cmd: string, args: string[], opts: { allowFail?: boolean } = {}): string {
  const asRoot = process.getuid?.() === 0;
  const file = asRoot ? 'runuser' : cmd;
  const argv = asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args;
  const res = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
  if (res.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} failed: ${res.stderr || res.stdout}`);
  return res.stdout;
}

export class CitusNode {
  constructor(
    readonly name: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  start(): void {
    run(path.join(PG_BIN, 'pg_ctl'), ['-D', this.dir, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '120', 'start']);
  }

  /** A fast shutdown: sessions are ended, the node refuses connections until start(). */
  stop(): void {
    run(path.join(PG_BIN, 'pg_ctl'), ['-D', this.dir, '-m', 'fast', '-w', '-t', '120', 'stop'], { allowFail: true });
  }

  psql(database: string, sql: string): string {
    return run(path.join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atqc', sql]);
  }
}

export interface CitusCluster {
  coordinator: CitusNode;
  workers: CitusNode[];
  /** The coordinator's URL of the lake database (the one the service is given). */
  url: string;
  database: string;
  stop(): void;
}

async function initNode(root: string, name: string, citus = true, settings: string[] = []): Promise<CitusNode> {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', root]);
  const node = new CitusNode(name, dir, await freePort());
  run(path.join(PG_BIN, 'initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  fs.appendFileSync(
    path.join(dir, 'postgresql.conf'),
    [
      `port = ${node.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      citus ? "shared_preload_libraries = 'citus'" : '',
      // A test cluster on a shared two-core machine: small, and nothing waits for the disk.
      'shared_buffers = 32MB',
      'max_connections = 60',
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      // No telemetry: this build has no libcurl, and nothing here should ever call out.
      citus ? 'citus.enable_statistics_collection = off' : '',
      ...settings,
      '',
    ].join('\n'),
  );
  node.start();
  return node;
}

/**
 * Starts a coordinator and two workers with database `database` and the citus extension in it.
 * `settings`: more postgresql.conf lines for every node (the suite's cluster holds many databases).
 */
export async function startCitusCluster(database = 'enrich', opts: { settings?: string[] } = {}): Promise<CitusCluster> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-citus-'));
  fs.chmodSync(root, 0o755);
  const nodes: CitusNode[] = [];
  const stop = () => {
    for (const n of nodes) n.stop();
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const name of ['coordinator', 'worker1', 'worker2']) nodes.push(await initNode(root, name, true, opts.settings));
    for (const n of nodes) {
      n.psql('postgres', `create database ${database}`);
      n.psql(database, 'create extension citus');
    }
    const [coordinator, ...workers] = nodes as [CitusNode, ...CitusNode[]];
    coordinator.psql(database, `select citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`);
    for (const w of workers) coordinator.psql(database, `select citus_add_node('127.0.0.1', ${w.port})`);
    return { coordinator, workers, url: coordinator.url(database), database, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/** A single PostgreSQL 15 node without Citus, set up as the cluster's nodes are (the bench's baseline on the same box). */
export async function startPlainNode(database = 'enrich'): Promise<{ node: CitusNode; url: string; stop(): void }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-pg15-'));
  fs.chmodSync(root, 0o755);
  let node: CitusNode | undefined;
  const stop = () => {
    node?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    node = await initNode(root, 'single', false);
    node.psql('postgres', `create database ${database}`);
    return { node, url: node.url(database), stop };
  } catch (err) {
    stop();
    throw err;
  }
}
