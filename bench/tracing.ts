/**
 * npm run bench:tracing — what tracing costs (issue 36): GET /api/v1/person?username= through the
 * full stack, side by side,
 *   previous  the code before tracing and the access log existed (a `git archive` of --previous,
 *             default the commit before this work, sharing this checkout's node_modules), on a
 *             database of its own that this code prepares (bench/previousLake.ts: its migrations,
 *             the same seeded lake; the usernames asked are this lake's, so a non-2xx count shows
 *             if the two lakes ever differ),
 *   off       this code without OTEL_* variables (no OpenTelemetry module loaded),
 *   on        this code with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver
 *             (http/protobuf, the default; every request sampled: the worst case),
 *   on 10 %   the same with OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.1
 *             (one trace in ten recorded: what a busy production instance would run),
 *   none kept OTEL_TRACES_SAMPLER=always_off: the SDK and instrumentations loaded, no span recorded
 *             (the fixed cost: context propagation and the wrappers, without spans or export),
 * in alternating rounds (odd rounds reversed), medians, and the ratios per round. The aims: off/previous
 * >= 0.98 (tracing off costs nothing measurable), on/off >= 0.85 (at most 15 % of req/s).
 * The lake is a small one of its own (--persons=20000 by default, database enrich_bench_tracing), so a run
 * is short; all three servers log at `warn` (as bench:lookup's), so the access log is not in the figures.
 * Options: --persons=20000 --companies=2000 --rounds=3 --seconds=5 --connections=16 --previous=<commit>
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, measure, measureServer, median, startServerProcess, stringArg, type Round } from './lib';

/** The commit before issue 36's tracing work: the "previous release" code path. */
const PREVIOUS = 'ddd6261';

async function main() {
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', 2_000);
  const rounds = intArg('rounds', 3);
  const seconds = intArg('seconds', 5);
  const connections = intArg('connections', 16);
  const previous = stringArg('previous') ?? PREVIOUS;
  const root = path.join(__dirname, '..');

  const db = await benchDatabaseUrl('enrich_bench_tracing');
  const knex = createKnex(db.url);
  let usernames: string[];
  let key: string;
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, companies);
    key = (await createWorkspace(knex, { name: `bench-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
    const { rows } = await knex.raw<{ rows: { username: string }[] }>('select username from persons order by random() limit 5000');
    usernames = rows.map((r) => r.username);
  } finally {
    await knex.destroy();
  }

  // The previous code, as it was, beside this checkout (its own src/, this node_modules).
  const previousDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-previous-'));
  execFileSync('sh', ['-c', `git -C "${root}" archive ${previous} | tar -x -C "${previousDir}"`]);
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(previousDir, 'node_modules'));
  // Its own database (same server, same seed and sizes), migrated and filled by that code: an older
  // version refuses a database migrated by a newer one (knex: "the migration directory is corrupt").
  const noOtel = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]));
  const previousLake = JSON.parse(
    execFileSync(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(__dirname, 'previousLake.ts'), previousDir, 'enrich_bench_tracing_previous', String(persons), String(companies)],
      { cwd: previousDir, env: { ...process.env, ...noOtel, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'inherit'] },
    )
      .toString()
      .trim()
      .split('\n')
      .pop()!,
  ) as { url: string; key: string };

  // A local OTLP/HTTP receiver: reads each export whole and answers 200, as a collector does.
  let exports = 0;
  let exportedBytes = 0;
  const receiver = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (exportedBytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const env = { ...noOtel, DATABASE_URL: db.url };
  const servers = {
    previous: await startServerProcess('fullStack.ts', { ...env, DATABASE_URL: previousLake.url }, previousDir),
    off: await startServerProcess('fullStack.ts', env),
    on: await startServerProcess('fullStackTraced.ts', { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp }),
    sampled: await startServerProcess('fullStackTraced.ts', {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
    unsampled: await startServerProcess('fullStackTraced.ts', { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_TRACES_SAMPLER: 'always_off' }),
  };
  let next = 0;
  const requests: autocannon.Request[] = [
    { setupRequest: (req) => ({ ...req, path: `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  const headers = { authorization: `Bearer ${key}` };
  const headersOf = (name: string) => (name === 'previous' ? { authorization: `Bearer ${previousLake.key}` } : headers);
  type Measured = Round & { cpuPerRequestMicros: number };
  const names = Object.keys(servers) as (keyof typeof servers)[];
  const results: Record<keyof typeof servers, Measured[]> = { previous: [], off: [], on: [], sampled: [], unsampled: [] };
  try {
    for (const name of names) await measure(servers[name].url, { seconds: 2, connections, headers: headersOf(name), requests });
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 ? [...names].reverse() : names;
      for (const name of order) results[name].push(await measureServer(servers[name], { seconds, connections, headers: headersOf(name), requests }));
      process.stderr.write(`round ${i + 1}/${rounds} done (${order.join(', ')})\n`);
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    receiver.close();
    await db.stop();
    fs.rmSync(previousDir, { recursive: true, force: true });
  }
  const med = (r: Measured[], f: (x: Measured) => number) => median(r.map(f));
  const row = (name: string, r: Measured[]) =>
    `${name.padEnd(34)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(6)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   CPU ${med(r, (x) => x.cpuPerRequestMicros).toFixed(0)} µs/req   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
  const ratios = (a: Measured[], b: Measured[], f: (x: Measured) => number) => a.map((x, i) => f(x) / Math.max(f(b[i]!), 0.001));
  const ratioLine = (label: string, values: number[], aim: string) =>
    `${label.padEnd(34)} median ${median(values).toFixed(3)}   rounds ${values.map((v) => v.toFixed(3)).join(' ')}   (${aim})`;
  const rps = (x: Measured) => x.requestsPerSecond;
  process.stdout.write(
    [
      `GET /api/v1/person?username= over ${persons} persons / ${companies} companies, ${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      row(`previous (${previous})`, results.previous),
      row('tracing off', results.off),
      row('tracing on (OTLP http/protobuf)', results.on),
      row('tracing on, 10 % of traces sampled', results.sampled),
      row('tracing on, none sampled', results.unsampled),
      ratioLine('off/previous requests/s', ratios(results.off, results.previous, rps), 'aim >= 0.98'),
      ratioLine('on/off requests/s', ratios(results.on, results.off, rps), 'aim >= 0.85'),
      ratioLine('on/off CPU per request', ratios(results.on, results.off, (x) => x.cpuPerRequestMicros), 'the cost of a traced request'),
      ratioLine('on 10 %/off requests/s', ratios(results.sampled, results.off, rps), 'aim >= 0.85'),
      ratioLine('none sampled/off CPU per request', ratios(results.unsampled, results.off, (x) => x.cpuPerRequestMicros), 'the fixed cost'),
      `OTLP exports received: ${exports} (${(exportedBytes / 1e6).toFixed(1)} MB)`,
      `Load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores, shared with other work); ${new Date().toISOString()}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
