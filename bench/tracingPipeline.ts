/**
 * npm run bench:tracing-pipeline — what tracing adds to one request in this process alone, without
 * the HTTP stack, the load generator or PostgreSQL's own CPU in the figure: the part bench:tracing's
 * full-stack figures cannot isolate on a busy machine. Each variant runs in a child process of its
 * own (the SDK is global to a process), which does what the edge and a lookup do with tracing:
 * `traceServerRequest` around a request of a few dozen awaited promises (Koa's middleware chain
 * makes about that many: with AsyncLocalStorage each costs a promise hook), one named prepared
 * statement on a real pg connection (the pg instrumentation's span, its statement text, the
 * scrubber), and `describeServerSpan` with the final answer; 16 requests in flight. Spans go to a
 * real OTLP/HTTP receiver in the parent (http/protobuf, every request sampled), so the batch
 * processor, the serialisation and the export's socket writes are in the child's CPU time.
 * The figure is the child's CPU time (user + system, all threads) per request; `off` (no OTEL_*
 * variable, no OpenTelemetry module loaded) is the same loop untraced, and on − off is what tracing
 * costs a request. Variants alternate over --rounds rounds; medians.
 * Options: --rounds=7 --requests=20000 --variants=off,on[,<name>=<ENV=VALUE;ENV=VALUE>...]: a variant
 *   whose name starts with `on` is traced (OTLP to the receiver), any other is not; e.g.
 *   --variants=off,on,on-batch128=OTEL_BSP_MAX_EXPORT_BATCH_SIZE=128,off-als=BENCH_ABLATE=als
 * Needs DATABASE_URL (any database: the statement reads no table).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { DETERMINISTIC_V8_FLAGS, intArg, median, stringArg } from './lib';

const STATEMENT = `select $1::text as username, 'person' as kind, now() as at where $1::text is not null`;

async function child(requests: number) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tracing = require('../src/observability/tracing') as typeof import('../src/observability/tracing');
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) tracing.startTracing(process.env);
  // Ablations, to find where the cost goes (BENCH_ABLATE, joined by +):
  //   als       every request inside an AsyncLocalStorage.run of its own (off: the promise hooks' cost alone),
  //   noexport  spans batched as usual but the exporter answers at once (no serialisation, no HTTP),
  //   nosend    spans serialised as the OTLP/protobuf exporter does, not sent (encoding without HTTP),
  //   noquery   no statement (no pg span, no pg round trip).
  const ablate = new Set((process.env.BENCH_ABLATE ?? '').split('+').filter(Boolean));
  if (ablate.has('nopg')) {
    // The pg instrumentation off (its wrapper restored): the request's server span and export only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const client = require('pg').Client.prototype as { query: { __original?: unknown } };
    if (client.query.__original) client.query = client.query.__original as never;
  }
  if (ablate.has('noexport')) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const proto = require('@opentelemetry/exporter-trace-otlp-proto') as { OTLPTraceExporter: { prototype: { export: (spans: unknown[], done: (r: { code: number }) => void) => void } } };
    proto.OTLPTraceExporter.prototype.export = (_spans, done) => done({ code: 0 });
  }
  if (ablate.has('nosend')) {
    // Serialised as the exporter does (OTLP protobuf), but not sent: the encoding's share without the HTTP request's.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as { ProtobufTraceSerializer: { serializeRequest: (spans: unknown[]) => Uint8Array | undefined } };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const proto = require('@opentelemetry/exporter-trace-otlp-proto') as { OTLPTraceExporter: { prototype: { export: (spans: unknown[], done: (r: { code: number }) => void) => void } } };
    proto.OTLPTraceExporter.prototype.export = (spans, done) => {
      ProtobufTraceSerializer.serializeRequest(spans);
      done({ code: 0 });
    };
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const als = ablate.has('als') ? new (require('node:async_hooks') as typeof import('node:async_hooks')).AsyncLocalStorage<object>() : undefined;
  // After the SDK, as `enrich serve` loads it: the pg instrumentation patches pg on its first require.
  // The service's own database client and its path for a lookup's statement (db/knex.ts preparedQuery:
  // a named statement on a pooled connection, a pg Query with a callback).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createKnex, preparedQuery } = require('../src/db/knex') as typeof import('../src/db/knex');
  // Under callgrind everything runs ~50 times slower: the timeouts stretched alike.
  const slow = process.env.BENCH_CALLGRIND === '1' ? 100 : 1;
  const knex = createKnex(process.env.DATABASE_URL!, 4, { statementTimeoutMs: 5000 * slow, acquireTimeoutMs: 5000 * slow });
  const headers = { host: '127.0.0.1', authorization: 'Bearer x' };
  let n = 0;
  const request = (i: number) => (als ? als.run({ i }, () => traced(i)) : traced(i));
  const traced = (i: number) =>
    tracing.traceServerRequest('GET', headers, async () => {
      // The middleware chain's awaits (each an async function's promise: a promise hook apiece with ALS).
      for (let step = 0; step < 30; step++) await Promise.resolve(step);
      const rows = ablate.has('noquery') ? [] : await preparedQuery(knex, 'pipeline_lookup', STATEMENT, [`user-${i}`]);
      for (let step = 0; step < 10; step++) await Promise.resolve(rows.length);
      tracing.describeServerSpan({ operationId: 'getPerson', route: '/api/v1/person', workspaceId: '8f2c9a4e-1b2d-4c3e-9f8a-0123456789ab', requestId: `req_${i.toString(16).padStart(20, '0')}`, status: 200 });
    });
  const run = async (count: number) => {
    const workers = Array.from({ length: 16 }, async () => {
      while (n < count) await request(n++);
    });
    await Promise.all(workers);
  };
  await run(2000); // warm-up: JIT, prepared statements, the exporter's connection
  // Under callgrind (--measure=instructions): the parent turns counting on now and dumps after the flush.
  const counted = process.env.BENCH_CALLGRIND === '1';
  const lines = counted ? readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]() : undefined;
  if (lines) {
    process.stdout.write('{"warm":true}\n');
    await lines.next();
  }
  n = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await run(requests);
  const used = process.cpuUsage(before);
  const wallMs = performance.now() - started;
  // The spans still queued are exported at shutdown: their serialisation and writes belong to these requests.
  const flushBefore = process.cpuUsage();
  await tracing.stopTracing(10_000);
  const flush = process.cpuUsage(flushBefore);
  if (lines) {
    process.stdout.write('{"counted":true}\n');
    await lines.next();
  }
  await knex.destroy();
  process.stdout.write(`${JSON.stringify({ cpuMicrosPerRequest: (used.user + used.system + flush.user + flush.system) / requests, userMicrosPerRequest: (used.user + flush.user) / requests, wallMs })}\n`);
}

async function parent() {
  const rounds = intArg('rounds', 7);
  const requests = intArg('requests', 20_000);
  const instructions = stringArg('measure') === 'instructions';
  if (!process.env.DATABASE_URL) throw new Error('bench:tracing-pipeline needs DATABASE_URL');
  let exports = 0;
  let bytes = 0;
  const receiver = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const variants = (stringArg('variants') ?? 'off,on').split(',').map((spec) => {
    const [name, envSpec] = spec.split(/=(.*)/s) as [string, string | undefined];
    const env: NodeJS.ProcessEnv = name.startsWith('on') ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } : {};
    for (const pair of (envSpec ?? '').split(';').filter(Boolean)) {
      const [k, v] = pair.split(/=(.*)/s) as [string, string];
      env[k] = v;
    }
    return { name, env };
  });
  const noOtel = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]));
  const results: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
  const loads: number[] = [];
  const unit = instructions ? 'instructions/request' : 'µs/request';
  const measureName = instructions ? 'instructions' : 'CPU';
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...variants].reverse() : variants;
    for (const v of order) {
      // Asynchronously: the receiver in this process must keep answering the child's exports.
      const out = await new Promise<string>((resolve, reject) => {
        // BENCH_ROOT=<dir>: this variant's code is another checkout's (with this file copied into it).
        const script = v.env.BENCH_ROOT ? path.join(v.env.BENCH_ROOT, 'bench', 'tracingPipeline.ts') : __filename;
        // BENCH_CPU_PROF=<dir>: each child writes a V8 CPU profile there (where a variant's time goes).
        const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${v.name}-${r + 1}.cpuprofile`] : [];
        const nodeArgs = [...prof, '--require', 'tsx/cjs', script, '--child', `--requests=${requests}`];
        // --measure=instructions: the child under callgrind, counting from the end of its warm-up to the end of its flush.
        const dir = instructions ? fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-pipeline-callgrind-')) : '';
        const outFile = path.join(dir, 'callgrind.out');
        const c = instructions
          ? spawn('valgrind', ['--tool=callgrind', '--quiet', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, ...DETERMINISTIC_V8_FLAGS, ...nodeArgs], {
              env: { ...process.env, ...noOtel, ...v.env, BENCH_CALLGRIND: '1' },
              stdio: ['pipe', 'pipe', 'inherit'],
            })
          : spawn(process.execPath, nodeArgs, { env: { ...process.env, ...noOtel, ...v.env }, stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        let count = 0;
        readline.createInterface({ input: c.stdout! }).on('line', (line) => {
          text += `${line}\n`;
          if (line === '{"warm":true}') {
            execFile('callgrind_control', ['-i', 'on', String(c.pid)], (err) => (err ? reject(err) : c.stdin!.write('\n')));
          } else if (line === '{"counted":true}') {
            execFile('callgrind_control', ['-d', String(c.pid)], (err) => {
              if (err) return reject(err);
              for (const f of fs.readdirSync(dir)) {
                const m = /^(?:totals|summary): (\d+)/m.exec(fs.readFileSync(path.join(dir, f), 'utf8'));
                if (m) count += Number(m[1]);
              }
              c.stdin!.write('\n');
            });
          }
        });
        c.once('exit', (code) => {
          if (dir) fs.rmSync(dir, { recursive: true, force: true });
          if (code !== 0) return reject(new Error(`${v.name} exited with ${code}`));
          resolve(instructions ? JSON.stringify({ cpuMicrosPerRequest: count / requests }) : text);
        });
      });
      results[v.name]!.push((JSON.parse(out.trim().split('\n').pop()!) as { cpuMicrosPerRequest: number }).cpuMicrosPerRequest);
    }
    loads.push(os.loadavg()[0]!);
    process.stderr.write(`round ${r + 1}/${rounds}: ${variants.map((v) => `${v.name} ${results[v.name]!.at(-1)!.toFixed(1)}`).join(', ')} ${unit}, load ${os.loadavg()[0]!.toFixed(1)}\n`);
  }
  receiver.close();
  const off = results.off;
  const lines = variants.map((v) => {
    const values = results[v.name]!;
    const added = off ? ` (+${median(values.map((x, i) => x - off[i]!)).toFixed(1)} ${instructions ? 'instructions' : 'µs'} over off, median of the rounds' differences)` : '';
    return `${v.name.padEnd(16)} ${measureName} ${median(values).toFixed(1).padStart(6)} ${unit}${v.name === 'off' ? '' : added}   rounds ${values.map((x) => x.toFixed(1)).join(' ')}`;
  });
  process.stdout.write(
    [
      `The tracing pipeline alone: ${requests} requests per child (16 in flight, 40 awaits and one prepared statement each), ${rounds} alternating rounds, ${instructions ? `instructions per request counted by callgrind from the end of the warm-up to the end of the final flush (V8 ${DETERMINISTIC_V8_FLAGS.join(' ')})` : 'child CPU per request'} (medians)`,
      ...lines,
      `OTLP exports received: ${exports} (${(bytes / 1e6).toFixed(1)} MB)`,
      `Load average (1 min) over the rounds: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (${os.cpus().length} cores, shared with other work); ${new Date().toISOString()}`,
      '',
    ].join('\n'),
  );
}

(process.argv.includes('--child') ? child(intArg('requests', 20_000)) : parent()).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
