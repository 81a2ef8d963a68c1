/** `enrich` as an operator runs it (a child process of bin/enrich.js) for the replica lane. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';

const BIN = path.resolve(__dirname, '../../bin/enrich.js');

export interface Served {
  url: string;
  logs(): string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** `enrich <args>` to its end: exit code and output (killed after `ms`). */
export async function runEnrich(args: string[], env: Record<string, string>, ms = 90_000): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, out };
}

/** `enrich serve <args>` until it logs that it listens. */
export async function serve(args: string[], env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', REDIS_URL: '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const done = exited(child);
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await done;
    clearTimeout(force);
  };
  const deadline = Date.now() + 90_000;
  while (!/"msg":"listening"/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`enrich serve did not start:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, logs: () => out, stop };
}
