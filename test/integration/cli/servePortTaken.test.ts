/**
 * `enrich serve` when its port is taken: one clear line on stderr, a non-zero exit, and a process
 * that ends by itself (nothing left holding the database, the embedded PostgreSQL included). The
 * port is really occupied (a server of this test listening on it) and the process is really spawned.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { ENRICH_BIN } from '../../helpers/cli';
import { testDatabaseUrl } from '../../helpers/harness';

/** A safety net for a process that never ends (the bug), not a measure of speed. */
const NEVER_EXITED_MS = 45_000;

let occupier: net.Server;
let port: number;

beforeAll(async () => {
  occupier = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  port = (occupier.address() as net.AddressInfo).port;
});
afterAll(() => new Promise((r) => occupier.close(r)));

/** Runs `enrich serve` and waits for it to end on its own; kills it (and fails) only past the safety net. */
function serve(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string; stdout: string; exitedByItself: boolean }> {
  const child = spawn(process.execPath, [ENRICH_BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    let exitedByItself = true;
    const net_ = setTimeout(() => {
      exitedByItself = false;
      child.kill('SIGKILL');
    }, NEVER_EXITED_MS);
    child.once('exit', (code) => {
      clearTimeout(net_);
      resolve({ code, stderr, stdout, exitedByItself });
    });
  });
}

/** stderr without bin/enrich.js's notice that it runs the sources through tsx (dist/ not built). */
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l && !l.includes('running the TypeScript sources'));

describe('enrich serve on a port that is taken', () => {
  it('with DATABASE_URL: one line naming the port, exit 1, and the process ends by itself', async () => {
    const res = await serve({ DATABASE_URL: testDatabaseUrl(), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    expect(res.exitedByItself).toBe(true);
    expect(res.code).toBe(1);
    expect(errorLines(res.stderr)).toEqual([`enrich: port ${port} on 127.0.0.1 is already in use by another process: stop it or set PORT to a free port`]);
  });

  it('with the embedded PostgreSQL: the same, and no PostgreSQL is left running in the data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-port-taken-'));
    try {
      const res = await serve({ DATABASE_URL: '', ENRICH_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
      expect(res.exitedByItself).toBe(true);
      expect(res.code).toBe(1);
      expect(errorLines(res.stderr)).toEqual([`enrich: port ${port} on 127.0.0.1 is already in use by another process: stop it or set PORT to a free port`]);
      expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the embedded PostgreSQL\'s port taken: one line naming EMBEDDED_PG_PORT, exit 1, nothing started in the data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-pg-port-taken-'));
    try {
      const free = await freePort();
      const res = await serve({ DATABASE_URL: '', ENRICH_DATA_DIR: dataDir, PORT: String(free), EMBEDDED_PG_PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
      expect(res.exitedByItself).toBe(true);
      expect(res.code).toBe(1);
      expect(errorLines(res.stderr)).toEqual([
        `enrich: port ${port} on 127.0.0.1, the embedded PostgreSQL's (EMBEDDED_PG_PORT), is already in use by another process: stop it or set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to use a PostgreSQL of your own)`,
      ]);
      // Found before initdb: no cluster was made, none runs.
      expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
      expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
