/**
 * The service's OTLP/protobuf encoding (src/observability/otlpProtobuf.ts) against the SDK's own
 * serializer, byte for byte: the same finished spans through both must give the same request, so
 * a collector cannot tell them apart. Spans of every shape the encoder handles: attribute values of
 * each type (strings repeated, so the cache's copies are compared too, numbers past 32 bits,
 * negative and fractional, arrays), events, links, a remote parent, trace state, an error status
 * with its message, several scopes, and a batch large enough for multi-byte lengths.
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { LeanNodeTracerProvider } from '../../../src/observability/leanTracer';
import { encodeTraceExportRequest, useLeanEncoding } from '../../../src/observability/otlpProtobuf';

function spans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanNodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'enrich', 'service.version': '1.0.0', 'deployment.environment.name': 'tést ✓' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const server = provider.getTracer('enrich', '1.0.0');
  const pg = provider.getTracer('enrich/pg');
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=abc,other=x'),
  });
  for (let i = 0; i < 300; i++) {
    const parent = i % 3 === 0 ? remote : ROOT_CONTEXT;
    const span = server.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, parent);
    span.updateName('getPerson');
    span.setAttribute('http.response.status_code', i % 7 === 0 ? 503 : 200);
    span.setAttribute('enrich.request_id', `req_${i.toString(16).padStart(20, '0')}`);
    span.setAttribute('enrich.workspace_id', `ws-${i % 4}`);
    span.setAttribute('http.route', '/api/v1/person');
    if (i % 7 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream 503 ünïcode' });
    if (i % 11 === 0) {
      span.setAttribute('big', 2 ** 40 + i);
      span.setAttribute('negative', -5 - i);
      span.setAttribute('negative.big', -(2 ** 45));
      span.setAttribute('fraction', 0.25 + i);
      span.setAttribute('flag', i % 2 === 0);
      span.setAttribute('list', ['a', 'b', `c${i}`]);
      span.setAttribute('numbers', [1, 2.5, -3]);
      span.setAttribute('long', 'x'.repeat(3000));
      span.addEvent('retry', { attempt: i, reason: 'timeout' });
      span.addEvent('plain');
      span.addLink({ context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE }, attributes: { why: 'follows' } });
    }
    const child = pg.startSpan(
      'pg.query:SELECT enrich',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.namespace': 'enrich',
          'server.address': '127.0.0.1',
          'server.port': 5432,
          'db.operation.name': 'SELECT',
          'db.query.text': `select * from persons where username = $1 -- ${i % 5}`,
        },
      },
      trace.setSpan(context.active(), span),
    );
    if (i % 13 === 0) {
      child.setAttribute('error.type', '23505');
      child.setStatus({ code: SpanStatusCode.ERROR });
    }
    child.end();
    span.end();
  }
  return exporter.getFinishedSpans();
}

describe('OTLP/protobuf encoding', () => {
  it('gives the SDK serializer\'s bytes for the same spans', () => {
    const finished = spans();
    expect(finished.length).toBe(600);
    const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(finished)!);
    // Twice: the second time every repeated attribute comes from the cache.
    for (let round = 0; round < 2; round++) {
      const lean = Buffer.from(encodeTraceExportRequest(finished));
      expect(lean.length).toBe(sdk.length);
      expect(lean.equals(sdk)).toBe(true);
    }
    // Single spans and small batches too (one-byte lengths everywhere).
    for (const n of [1, 2, 5]) expect(Buffer.from(encodeTraceExportRequest(finished.slice(0, n))).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(finished.slice(0, n))!))).toBe(true);
  });

  it('goes into the SDK\'s OTLP/HTTP protobuf exporter, whose internals are where this version keeps them', () => {
    const exporter = new OTLPTraceExporter({ url: 'http://127.0.0.1:9/v1/traces' });
    expect(useLeanEncoding(exporter)).toBe(true);
    const serializer = (exporter as unknown as { _delegate: { _serializer: { serializeRequest(s: ReadableSpan[]): Uint8Array } } })._delegate._serializer;
    const finished = spans().slice(0, 10);
    expect(Buffer.from(serializer.serializeRequest(finished)).equals(Buffer.from(ProtobufTraceSerializer.serializeRequest(finished)!))).toBe(true);
    expect(useLeanEncoding({})).toBe(false);
  });
});
