/**
 * Starts Prism (`@stoplight/prism-cli`, from node_modules) on a free loopback port, on the Prism
 * variant of the bundle (paths under /api/v1, see scripts/prismBundle.ts), and stops it again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';
import { removePrismBundle, writePrismBundle } from '../../scripts/prismBundle';

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
  // The mock's bundle is written and removed by scripts/mock.ts's own process; the proxy's here.
  const bundle = args.mode === 'proxy' ? writePrismBundle(url) : undefined;
  const removeBundle = () => bundle && removePrismBundle(bundle);
  const argv =
    args.mode === 'mock'
      ? [TSX_CLI, MOCK_SCRIPT]
      : [
          PRISM_BIN, 'proxy', ...(args.errors === false ? [] : ['--errors']),
          // Warnings and errors only: at the default level Prism formats several log lines for every
          // request (the proxy run sends it thousands), which no test reads. Its findings reach the
          // tests in the answer itself (prismProxy.ts); what it logs stays in output() for failures.
          '-v', 'warn',
          '-h', '127.0.0.1', '-p', String(port), bundle!, args.upstream,
        ];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MOCK_PORT: String(port) } });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const started = new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`Prism did not start within 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (/Prism is listening/.test(out)) finish();
    };
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', (code) => finish(new Error(`Prism exited with ${code} before listening:\n${out}`)));
    // At level warn the proxy does not print that it listens: it is ready once its port answers as
    // Prism does for a path outside the document (a problem of Prism's own, not another process).
    if (args.mode === 'proxy') {
      const probe = () => {
        if (done) return;
        const again = () => setTimeout(probe, 100);
        http
          .get({ host: '127.0.0.1', port, path: '/__enrich_prism_ready', agent: false }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => (body.includes('stoplight.io/prism') ? finish() : again()));
            res.on('error', again);
          })
          .on('error', again);
      };
      probe();
    }
  });
  await started.catch((err: unknown) => {
    child.kill('SIGKILL');
    removeBundle();
    throw err;
  });
  return {
    url,
    port,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => (removeBundle(), resolve());
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}
