/**
 * The embedded PostgreSQL of the default setup: a random superuser password made on first start,
 * kept in the data directory with mode 0600 (it was postgres/postgres, open to any local user), a
 * cluster made with the old password gets a new one on its next start, and the server listens on
 * 127.0.0.1 only, without a Unix socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, livePostmasterPid, PASSWORD_FILE } from '../../../src/db/embedded';
import { enrichProcess } from '../../helpers/cli';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-embedded-'));
const clusterDir = path.join(dataDir, 'postgres');
let port: number;

/** Runs the cluster (as the service would) until stopped. */
async function runCluster(): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['-r', 'tsx/cjs', path.resolve(__dirname, '../../faults/postgresProcess.ts'), clusterDir, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('ready ')) resolve();
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

async function connects(password: string, host = '127.0.0.1'): Promise<boolean | string> {
  const client = new pg.Client({ host, port, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('the embedded PostgreSQL', () => {
  it('gets a random superuser password on first start, kept 0600 in the data directory; postgres/postgres is refused', async () => {
    port = await freePort();
    const env = { DATABASE_URL: '', ENRICH_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) };
    const res = await enrichProcess(['migrate', '--json'], env);
    expect(res.code).toBe(0);
    const file = path.join(clusterDir, PASSWORD_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const password = fs.readFileSync(file, 'utf8').trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    if (process.getuid?.() === 0) expect(res.stderr).not.toMatch(/o\+x.*\/tmp \(/); // /tmp already allows traversal

    const cluster = await runCluster();
    try {
      // The running postmaster is recognised by its pid file (the stale-pid cases: test/unit/db).
      const pid = livePostmasterPid(clusterDir);
      expect(pid).toBe(Number(fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]));
      expect(await connects(password)).toBe(true);
      expect(await connects('postgres')).toBe('28P01');
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
      await client.connect();
      const settings = await client.query(`select name, setting from pg_settings where name in ('listen_addresses', 'unix_socket_directories') order by name`);
      expect(settings.rows).toEqual([
        { name: 'listen_addresses', setting: '127.0.0.1' },
        { name: 'unix_socket_directories', setting: '' },
      ]);
      // What a cluster made before random passwords looks like: the old password, no file.
      await client.query(`alter role postgres password 'postgres'`);
      await client.end();
    } finally {
      await cluster.stop();
    }
    fs.rmSync(file);

    const upgraded = await runCluster();
    try {
      const replaced = fs.readFileSync(file, 'utf8').trim();
      expect(replaced).not.toBe(password);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(await connects(replaced)).toBe(true);
      expect(await connects('postgres')).toBe('28P01');
    } finally {
      await upgraded.stop();
    }
    // Stopped: the pid file is gone or names no postgres.
    expect(livePostmasterPid(clusterDir)).toBeUndefined();
  }, 180_000);
});
