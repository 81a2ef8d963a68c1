/** Shared benchmark plumbing: servers in child processes, autocannon rounds, medians. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs a bench/servers/*.ts script under tsx and waits for the {"url"} line it prints. */
export function startServerProcess(script: string, env: NodeJS.ProcessEnv = {}): Promise<Server> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(__dirname, 'servers', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface Round {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function measure(
  url: string,
  opts: { seconds: number; connections: number; headers?: Record<string, string>; requests?: autocannon.Request[] },
): Promise<Round> {
  const result = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    requests: opts.requests,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function intArg(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
}
