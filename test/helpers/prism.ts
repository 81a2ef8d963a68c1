/**
 * Starts Prism (`@stoplight/prism-cli`, from node_modules) on a free loopback port, on the Prism
 * variant of the bundle (paths under /api/v1, see scripts/prismBundle.ts), and stops it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';
import { writePrismBundle } from '../../scripts/prismBundle';

export interface PrismProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything Prism printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const PRISM_BIN = path.resolve(__dirname, '../../node_modules/.bin/prism');
const TSX_CLI = path.resolve(__dirname, '../../node_modules/tsx/dist/cli.mjs');
const MOCK_SCRIPT = path.resolve(__dirname, '../../scripts/mock.ts');

export async function startPrism(args: { mode: 'mock' } | { mode: 'proxy'; upstream: string; errors?: boolean }): Promise<PrismProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The mock runs through scripts/mock.ts, exactly what `npm run mock` runs (it forwards SIGTERM to Prism).
  const argv =
    args.mode === 'mock'
      ? [TSX_CLI, MOCK_SCRIPT]
      : [PRISM_BIN, 'proxy', ...(args.errors === false ? [] : ['--errors']), '-h', '127.0.0.1', '-p', String(port), writePrismBundle(url), args.upstream];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MOCK_PORT: String(port) } });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (/Prism is listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    port,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
