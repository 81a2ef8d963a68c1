/**
 * npm run bench:tracing-encode — the OTLP/protobuf encoding of one export batch, the SDK's
 * serializer (@opentelemetry/otlp-transformer) against otlpProtobuf.ts, on spans shaped like a
 * traced lookup's: per request one server span (the edge's six attributes, a unique request id
 * among them) and three statement spans (pgSpans.ts's six attributes, a 210-character statement
 * text); 512 spans a batch, as the batch processor sends them. Alternating, --rounds=5 rounds of
 * --batches=400 encodings each; CPU µs per span (process.cpuUsage: this process does nothing
 * else). It checks that both give the same bytes.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import os from 'node:os';
import { LeanNodeTracerProvider } from '../src/observability/leanTracer';
import { encodeTraceExportRequest } from '../src/observability/otlpProtobuf';
import { PG_SCOPE } from '../src/observability/pgSpans';
import { intArg, median } from './lib';

const resource = resourceFromAttributes({ 'service.name': 'enrich', 'service.version': '1.0.0', 'telemetry.sdk.name': 'opentelemetry', 'telemetry.sdk.language': 'nodejs', 'telemetry.sdk.version': '2.2.0' });
const serverScope = { name: 'enrich' };
const pgScope = { name: 'enrich/pg' };
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
const STATEMENT = 'select p.id, p.username, p.full_name, p.headline, p.location, p.updated_at, c.name as company from persons p left join companies c on c.id = p.company_id where p.username = $1 and p.visible limit 1';
const workspace = hex(24);

/** Real finished spans of the lean tracer (leanTracer.ts), as the batch processor hands them to the exporter. */
function batch(size: number): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  const collect: SpanProcessor = { onStart: () => undefined, onEnd: (span) => void out.push(span), forceFlush: async () => undefined, shutdown: async () => undefined };
  const provider = new LeanNodeTracerProvider({ resource, spanProcessors: [collect] });
  const server = provider.getTracer('enrich');
  const pg = provider.getTracer(PG_SCOPE);
  while (out.length < size) {
    const span = server.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, ROOT_CONTEXT);
    const inside = trace.setSpan(ROOT_CONTEXT, span);
    for (let k = 0; k < 3; k++) {
      pg.startSpan('pg.query:SELECT enrich', {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', 'db.namespace': 'enrich', 'server.address': '127.0.0.1', 'server.port': 5432, 'db.operation.name': 'SELECT', 'db.query.text': STATEMENT },
      }, inside).end();
    }
    span.updateName('getPerson');
    span.setAttribute('http.response.status_code', 200);
    span.setAttribute('enrich.request_id', hex(20));
    span.setAttribute('enrich.operation_id', 'getPerson');
    span.setAttribute('http.route', '/api/v1/person');
    span.setAttribute('enrich.workspace_id', workspace);
    span.end();
  }
  return out.slice(0, size);
}

function main() {
  const rounds = intArg('rounds', 5);
  const batches = intArg('batches', 400);
  const spans = batch(512);
  const encoders = { sdk: (s: ReadableSpan[]) => ProtobufTraceSerializer.serializeRequest(s)!, lean: encodeTraceExportRequest };
  const same = Buffer.compare(Buffer.from(encoders.sdk(spans)), Buffer.from(encoders.lean(spans))) === 0;
  const results: Record<string, number[]> = { sdk: [], lean: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? (['lean', 'sdk'] as const) : (['sdk', 'lean'] as const);
    for (const name of order) {
      for (let i = 0; i < 50; i++) encoders[name](spans);
      const start = process.cpuUsage();
      for (let i = 0; i < batches; i++) encoders[name](spans);
      const used = process.cpuUsage(start);
      results[name]!.push((used.user + used.system) / batches / spans.length);
    }
  }
  const bytes = encoders.sdk(spans).length;
  const sdk = median(results.sdk!);
  const lean = median(results.lean!);
  process.stdout.write(
    [
      `512 spans a batch (${bytes} bytes; a request = 1 server + 3 statement spans), ${rounds} alternating rounds of ${batches} batches; same bytes: ${same}`,
      `SDK serializer      ${sdk.toFixed(2)} µs per span (${(sdk * 4).toFixed(1)} per request)   rounds ${results.sdk!.map((v) => v.toFixed(2)).join(' ')}`,
      `otlpProtobuf.ts     ${lean.toFixed(2)} µs per span (${(lean * 4).toFixed(1)} per request)   rounds ${results.lean!.map((v) => v.toFixed(2)).join(' ')}`,
      `lean/SDK            ${(lean / sdk).toFixed(3)} (median of the two medians' ratio)`,
      `Load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${process.version}; ${new Date().toISOString()}`,
      '',
    ].join('\n'),
  );
  if (!same) process.exitCode = 1;
}

main();
