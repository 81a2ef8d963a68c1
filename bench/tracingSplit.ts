/**
 * npm run bench:tracing-split — where tracing's added cost per request goes, part by part, in one
 * process: each part of the pipeline is run on its own in short blocks, the parts alternating
 * (rotated every round) so a swing of the machine's load falls on all alike, and each part's
 * figure is the median over the rounds of its CPU time (user + system of this process) per request.
 * A request here is what a traced lookup makes: a server span (the edge's attributes) and one
 * statement span (pgSpans.ts's attributes), both ended.
 *   spans         starting, filling and ending the two spans (the lean tracer, a processor that only keeps them)
 *   spans-retained  the same with the last 1,024 spans kept alive, as the batch processor's queue keeps
 *                 them until their batch is exported (the garbage collector's share: promotion)
 *   context       AsyncLocalStorage.run around a request of 40 awaited promises, less the same 40 awaits outside it
 *                 (on Node 20 the promise hooks every promise then pays; on 24 the AsyncContextFrame)
 *   batch         the BatchSpanProcessor's onEnd for the two spans (its exporter answering at once)
 *   encode-sdk    the SDK's OTLP/protobuf serializer, per request's share of a batch of 512 spans
 *   http          sending one encoded batch with the SDK's OTLP/HTTP exporter transport to a receiver in a
 *                 child process, per request's share (256 requests a batch)
 * Options: --rounds=15 --block=2000 (requests per block). Any Node binary can run it
 * (e.g. the Node 24 of `npm run test:node`: <node> node_modules/tsx/dist/cli.mjs bench/tracingSplit.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import os from 'node:os';
import readline from 'node:readline';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { LeanNodeTracerProvider } from '../src/observability/leanTracer';
import { endLookupServerSpan, STATEMENT } from './tracingFixtures';
import { intArg, median } from './lib';


async function main() {
  const rounds = intArg('rounds', 15);
  const block = intArg('block', 2000);
  const kept: ReadableSpan[] = [];
  // `retain` (the spans-retained part) keeps the last 1,024 finished spans alive, as the batch
  // processor's queue does until a batch is exported; otherwise a span is garbage once it ends.
  const ring: ReadableSpan[] = new Array(1024);
  let ringAt = 0;
  let retain = false;
  const keep = {
    onStart() {},
    onEnd: (s: ReadableSpan) => {
      if (kept.length < 512) kept.push(s);
      if (retain) ring[ringAt++ & 1023] = s;
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const resource = resourceFromAttributes({ 'service.name': 'enrich', 'service.version': '1.0.0' });
  const provider = new LeanNodeTracerProvider({ resource, spanProcessors: [keep] });
  const server = provider.getTracer('enrich');
  const pg = provider.getTracer('enrich/pg');
  let i = 0;
  const request = () => {
    const span = server.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, ROOT_CONTEXT);
    const child = pg.startSpan(
      'pg.query:lookup_person enrich',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', 'db.namespace': 'enrich', 'server.address': '127.0.0.1', 'server.port': 5432, 'db.operation.name': 'SELECT', 'db.query.text': STATEMENT, 'db.postgresql.plan': 'lookup_person' },
      },
      trace.setSpan(ROOT_CONTEXT, span),
    );
    child.end();
    endLookupServerSpan(span, i++);
    return [span, child] as unknown as ReadableSpan[];
  };
  for (let k = 0; k < 300; k++) request();
  const batch = kept.slice(0, 512);

  // The batch processor with an exporter that answers at once (its timers and buffer, no encoding).
  const nullExporter: SpanExporter = { export: (_s, done) => done({ code: 0 }), shutdown: async () => {} };
  const bsp = new BatchSpanProcessor(nullExporter);

  // A receiver in a child process (its CPU is not this process's), and the SDK's exporter pointed at it.
  const receiver = spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.writeHead(200,{'content-type':'application/x-protobuf'}).end())}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => readline.createInterface({ input: receiver.stdout! }).once('line', resolve));
  const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
  const encoded = ProtobufTraceSerializer.serializeRequest(batch)!;
  const transport = (exporter as unknown as { _delegate: { _transport: { send(data: Uint8Array, timeout: number): Promise<{ status: string }> } } })._delegate._transport;

  const als = new AsyncLocalStorage<object>();
  const awaits = async () => {
    for (let s = 0; s < 40; s++) await Promise.resolve(s);
  };
  const parts: Record<string, (n: number) => Promise<void> | void> = {
    spans: (n) => {
      for (let k = 0; k < n; k++) request();
    },
    'spans-retained': (n) => {
      retain = true;
      for (let k = 0; k < n; k++) request();
      retain = false;
      ring.fill(undefined as unknown as ReadableSpan);
    },
    'context+': async (n) => {
      const store = {};
      for (let k = 0; k < n; k++) await als.run(store, awaits);
      als.disable(); // the promise hooks off again (Node 20), so `context-` runs without them
    },
    'context-': async (n) => {
      for (let k = 0; k < n; k++) await awaits();
    },
    batch: (n) => {
      for (let k = 0; k < n; k++) {
        bsp.onEnd(batch[(2 * k) % 512]!);
        bsp.onEnd(batch[(2 * k + 1) % 512]!);
      }
    },
    'encode-sdk': (n) => {
      for (let k = 0; k < n / 256; k++) ProtobufTraceSerializer.serializeRequest(batch);
    },
    http: async (n) => {
      for (let k = 0; k < n / 256; k++) {
        const r = await transport.send(encoded, 10_000);
        if (r.status !== 'success') throw new Error(`export answered ${r.status}`);
      }
    },
  };
  void context; // (the API's context manager is not registered: `context` parts use AsyncLocalStorage directly, as the SDK's manager does)
  const names = Object.keys(parts);
  const per: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) await parts[n]!(block); // warm-up
  const loads: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const order = names.map((_, j) => names[(r + j) % names.length]!);
    for (const n of order) {
      const before = process.cpuUsage();
      await parts[n]!(block);
      const used = process.cpuUsage(before);
      per[n]!.push((used.user + used.system) / block);
    }
    loads.push(os.loadavg()[0]!);
  }
  receiver.kill();
  await bsp.shutdown();
  const m = (n: string) => median(per[n]!);
  const contextAdded = median(per['context+']!.map((x, k) => x - per['context-']![k]!));
  const rows: [string, number][] = [
    ['spans (start, attributes, end)', m('spans')],
    ['  the same, the last 1,024 spans kept alive', m('spans-retained')],
    ['context (ALS.run + 40 awaits) − 40 awaits', contextAdded],
    ['batch processor onEnd', m('batch')],
    ['OTLP/protobuf encoding (SDK serializer)', m('encode-sdk')],
    ['HTTP export (share of a 512-span batch)', m('http')],
  ];
  process.stdout.write(
    [
      `Tracing's parts per request (2 spans), Node ${process.version}, ${rounds} rounds of ${block} requests a part, CPU µs per request (medians)`,
      ...rows.map(([k, v]) => `${k.padEnd(44)} ${v.toFixed(2).padStart(7)} µs`),
      `sum ${(m('spans') + contextAdded + m('batch') + m('encode-sdk') + m('http')).toFixed(1)} µs; 40 awaits alone ${m('context-').toFixed(2)} µs (the context line scales with the promises a request makes: these 40 awaits make ~80, a real lookup ~25)`,
      `Load average (1 min) over the rounds: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (${os.cpus().length} cores, shared with other work); ${new Date().toISOString()}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
