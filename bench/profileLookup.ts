/**
 * npm run bench:profile — where the full stack spends its CPU per request: runs the server of
 * bench:lookup (bench/servers/fullStack.ts) under `node --cpu-prof`, loads it with autocannon for a
 * while, stops it, and prints the profile's self time summed by package/file and by function
 * (bench/cpuProfileSummary.ts). The lake is the one bench:lookup built (BENCH_DATABASE, default
 * enrich_bench). Options: --path=/api/v1/person (any path; /api/v1/person, and a path ending in
 * `username=`, walk sampled usernames) --seconds=12 --connections=16 --top=40, and --live=<persons>,<companies>:
 * the server's live source is `enrich live-sim` of the bench world of that size (for
 * /api/v1/person/realtime; for example BENCH_DATABASE=enrich_bench_realtime with --live=20000,1000).
 * --traced: the server is bench/servers/fullStackTraced.ts exporting every span (OTLP http/protobuf)
 * to a local receiver started here (what tracing on costs, issue 36); --sampler=<OTEL_TRACES_SAMPLER>
 * and --sampler-arg=<OTEL_TRACES_SAMPLER_ARG> set the sampler. --server=<file in bench/servers> profiles
 * another server the same way (fastifyPersonLookup.ts: the anchor's own profile for the same
 * request; bareHealth.ts for /api/v1/health).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { createKnex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, intArg, startSimulatorProcess, stringArg } from './lib';
import { summarizeCpuProfile } from './cpuProfileSummary';

async function main() {
  const target = stringArg('path') ?? '/api/v1/person';
  const seconds = intArg('seconds', 12);
  const connections = intArg('connections', 16);
  const db = await benchDatabaseUrl();
  const knex = createKnex(db.url);
  let key: string;
  let usernames: string[];
  try {
    key = (await createWorkspace(knex, { name: `profile-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
    const { rows } = await knex.raw<{ rows: { username: string }[] }>('select username from persons tablesample system (5) repeatable (7) limit 5000');
    usernames = rows.map((r) => r.username);
  } finally {
    await knex.destroy();
  }
  const live = stringArg('live')?.split(',').map(Number);
  const sim = live ? await startSimulatorProcess(live[0]!, live[1]!) : undefined;
  // --traced: a local OTLP/HTTP receiver that reads each export whole and answers 200, as a collector does.
  const traced = process.argv.includes('--traced');
  const receiver = traced
    ? http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
      })
    : undefined;
  if (receiver) await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const sampler = stringArg('sampler');
  const samplerArg = stringArg('sampler-arg');
  const otelEnv: NodeJS.ProcessEnv = receiver
    ? {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        ...(sampler ? { OTEL_TRACES_SAMPLER: sampler } : {}),
        ...(samplerArg ? { OTEL_TRACES_SAMPLER_ARG: samplerArg } : {}),
      }
    : {};
  const started = performance.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'enrich-profile-'));
  const child = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--require', 'tsx/cjs', path.join(__dirname, 'servers', stringArg('server') ?? (traced ? 'fullStackTraced.ts' : 'fullStack.ts'))],
    { env: { ...process.env, ...otelEnv, DATABASE_URL: db.url, ...(sim ? { LIVE_SOURCE_URL: sim.protocolUrl, REFRESH_IN_PROCESS: '0' } : {}) }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    readline.createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.startsWith('{"url"')) resolve((JSON.parse(l) as { url: string }).url);
    });
  });
  // Start-up (module loading, tsx, the contract's compilation) and a warm-up second stay out of the summary.
  const skipMs = performance.now() - started + 1000;
  let next = 0;
  const pathOf = () =>
    !usernames.length
      ? target
      : target === '/api/v1/person'
        ? `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length]!)}`
        : target.endsWith('username=')
          ? `${target}${encodeURIComponent(usernames[next++ % usernames.length]!)}`
          : target;
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      { url, connections, duration: seconds, headers: { authorization: `Bearer ${key}` }, requests: [{ setupRequest: (req) => ({ ...req, path: pathOf() }) }] },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );
  child.removeAllListeners('exit');
  await new Promise((done) => {
    child.once('exit', done);
    child.kill('SIGTERM');
  });
  await sim?.stop();
  receiver?.close();
  await db.stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  process.stdout.write(`${target}: ${result.requests.average.toFixed(0)} req/s, non-2xx ${result.non2xx}, profile ${path.join(dir, file)}\n`);
  process.stdout.write(summarizeCpuProfile(path.join(dir, file), intArg('top', 40), skipMs));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
