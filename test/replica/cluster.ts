/**
 * A real primary and a real streaming standby for the replica lane, made with the machine's
 * PostgreSQL binaries (Debian's postgresql-15: initdb, pg_ctl, pg_basebackup) in a temporary
 * directory, on free loopback ports, trust authentication on 127.0.0.1 only. As root (CI), every
 * binary runs as the `postgres` system user, which PostgreSQL requires.
 *
 * Everything started here is stopped, and the directory removed, by `destroy()`; a process exit
 * that skips it (a crashed jest) still stops both servers (the `exit` hook), so nothing is left
 * running on the machine.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded';

export const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Why the lane cannot run here, or undefined when it can. */
export function missingReason(): string | undefined {
  const missing = TOOLS.filter((t) => !fs.existsSync(path.join(PG_BIN, t)));
  if (missing.length) return `PostgreSQL binaries not found in ${PG_BIN} (${missing.join(', ')}); install postgresql-15 or set PG_BIN`;
  if (isRoot()) {
    if (spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no `postgres` user to run PostgreSQL as';
    if (spawnSync('sh', ['-c', 'command -v runuser']).status !== 0) return 'running as root without runuser to run PostgreSQL as `postgres`';
  }
  return undefined;
}

/** Runs a PostgreSQL binary (as `postgres` when we are root); rejects with its output on failure. */
function run(tool: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const bin = path.join(PG_BIN, tool);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${tool} ${args.join(' ')} exited with ${code}:\n${out}`));
    });
  });
}

/** One server of the cluster: its data directory and port. */
export class Node {
  constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await run('pg_ctl', ['-D', this.dir, '-l', `${this.dir}.log`, '-w', '-t', '60', 'start']);
  }

  /** `pg_ctl stop -m fast`: what an operator (or a failing host's init system) does. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    if (!fs.existsSync(path.join(this.dir, 'postmaster.pid'))) return;
    await run('pg_ctl', ['-D', this.dir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  /** Every process of this server (postmaster and children) stopped by the kernel: a stalled standby, connections open, nothing answers. */
  pause(): void {
    this.signal('SIGSTOP');
  }

  resume(): void {
    this.signal('SIGCONT');
  }

  private signal(signal: NodeJS.Signals): void {
    let postmaster: number;
    try {
      postmaster = Number(fs.readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return;
    }
    const pids = [postmaster];
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(entry)) continue;
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so split after ')'.
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
      } catch {
        // ended meanwhile
      }
    }
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone
      }
    }
  }

  /** One statement on database `database`, on a connection of its own, bounded. */
  async query<R = Record<string, unknown>>(sql: string, values: unknown[] = [], database = 'enrich'): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url(database), connectionTimeoutMillis: 5000, statement_timeout: 10_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, values)).rows as R[];
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export interface Cluster {
  primary: Node;
  standby: Node;
  destroy(): Promise<void>;
}

/**
 * A primary (wal_level=replica, a replication entry in pg_hba.conf) with database `enrich`, and a
 * hot standby made from it with `pg_basebackup -R` (streaming, its standby.signal and
 * primary_conninfo written by pg_basebackup), both running.
 */
export async function startCluster(): Promise<Cluster> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-replica-'));
  if (isRoot()) spawnSync('chown', ['postgres', base]);
  const primary = new Node(path.join(base, 'primary'), await freePort());
  const standby = new Node(path.join(base, 'standby'), await freePort());
  let stopped = false;
  // A jest process that ends without afterAll (crash, kill) still stops both servers.
  const onExit = () => {
    if (stopped) return;
    for (const node of [standby, primary]) {
      const args = ['-D', node.dir, '-m', 'immediate', 'stop'];
      if (isRoot()) spawnSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, 'pg_ctl'), ...args]);
      else spawnSync(path.join(PG_BIN, 'pg_ctl'), args);
    }
    fs.rmSync(base, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const destroy = async () => {
    standby.resume();
    for (const node of [standby, primary]) await node.stop('immediate').catch(() => undefined);
    stopped = true;
    process.removeListener('exit', onExit);
    fs.rmSync(base, { recursive: true, force: true });
  };
  try {
    await run('initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    fs.appendFileSync(
      path.join(primary.dir, 'postgresql.conf'),
      [
        `port = ${primary.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${base}'`,
        'wal_level = replica',
        'max_wal_senders = 4',
        'hot_standby = on',
        // A test cluster on a shared machine: nothing here must survive a power cut.
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        '',
      ].join('\n'),
    );
    // Loopback only: the standby's replication connection, and everyone else's.
    fs.writeFileSync(
      path.join(primary.dir, 'pg_hba.conf'),
      ['local all all trust', 'host replication postgres 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust', ''].join('\n'),
    );
    await primary.start();
    await primary.query('create database enrich', [], 'postgres');
    await run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.dir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync']);
    fs.appendFileSync(path.join(standby.dir, 'postgresql.auto.conf'), `port = ${standby.port}\n`);
    await standby.start();
  } catch (err) {
    await destroy();
    throw err;
  }
  return { primary, standby, destroy };
}

/**
 * Whether the standby has replayed everything the primary has recorded so far. The insert position,
 * not pg_current_wal_lsn() (what the primary has written out): a commit made with synchronous_commit
 * off (the realtime write-back of a copy with no change) stays in the WAL buffers until the WAL
 * writer's next round, beyond the written position, and a standby caught up with that position
 * still lacks it.
 */
export async function caughtUp(cluster: Cluster): Promise<boolean> {
  const [{ lsn }] = await cluster.primary.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn');
  const [{ ok }] = await cluster.standby.query<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [lsn]);
  return ok;
}

/** Scans of the lake's tables counted by a server for its own queries (each server keeps its own). */
export async function tableScans(node: Node): Promise<number> {
  const [{ scans }] = await node.query<{ scans: number }>(
    'select coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)::int8 as scans from pg_stat_user_tables',
  );
  return Number(scans);
}
