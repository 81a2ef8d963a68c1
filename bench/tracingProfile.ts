/**
 * npm run bench:tracing-profile — where a traced lookup's extra CPU goes: the full stack's lookup
 * (bench:tracing's `off` and `on` servers, spans to a local OTLP/HTTP receiver) each run under
 * `--cpu-prof` for --seconds of load (16 connections), then each profile summarised by function
 * and package (bench/cpuProfileSummary.ts), the traced one beside the untraced one.
 * Options: --persons=20000 --companies=2000 --seconds=15 --only=off,on --dir=<where the profiles go>
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { summarizeCpuProfile } from './cpuProfileSummary';
import { benchDatabaseUrl, prepareLookupLake, intArg, measure, stringArg } from './lib';

async function main() {
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', 2_000);
  const seconds = intArg('seconds', 15);
  const dir = stringArg('dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tracing-profile-'));
  const db = await benchDatabaseUrl(process.env.BENCH_DATABASE || 'enrich_bench_tracing');
  const { key, usernames } = await prepareLookupLake(db.url, persons, companies, 'select username from persons order by random() limit 5000');
  let exports = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const noOtel = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]));
  let next = 0;
  const requests: autocannon.Request[] = [
    { setupRequest: (req) => ({ ...req, path: `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  const names = stringArg('only')?.split(',') ?? ['off', 'on'];
  try {
    for (const name of names) {
      const traced = name.startsWith('on');
      const extra = name.includes('=') ? Object.fromEntries(name.split('=').slice(1).join('=').split(';').map((kv) => kv.split('=') as [string, string])) : {};
      const label = name.split('=')[0]!;
      const env = { ...noOtel, DATABASE_URL: db.url, ...(traced ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp } : {}), ...extra };
      const server = await startProfiled(traced ? 'fullStackTraced.ts' : 'fullStack.ts', env, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${label}.cpuprofile`]);
      await measure(server.url, { seconds: 3, connections: 16, headers: { authorization: `Bearer ${key}` }, requests });
      const round = await measure(server.url, { seconds, connections: 16, headers: { authorization: `Bearer ${key}` }, requests });
      await server.stop();
      process.stdout.write(`\n=== ${label}: ${round.requestsPerSecond.toFixed(0)} req/s, load ${os.loadavg()[0]!.toFixed(1)}\n`);
      const file = path.join(dir, `${label}.cpuprofile`);
      if (fs.existsSync(file)) process.stdout.write(`${summarizeCpuProfile(file, 45, 3000)}\n`);
    }
    process.stdout.write(`OTLP exports: ${exports}; profiles in ${dir}\n`);
  } finally {
    receiver.close();
    await db.stop();
  }
}

/** A bench server (bench/servers/<script>) started with these node flags; resolves once it prints its URL. */
function startProfiled(script: string, env: NodeJS.ProcessEnv, flags: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...flags, '--require', 'tsx/cjs', path.join(__dirname, 'servers', script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
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

void main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
