/**
 * npm run bench:tracing-spans — the span work of one traced lookup alone, in this process: a server
 * span (the edge's attributes) and three statement spans (pgSpans.ts's attributes) started, filled and
 * ended by the lean tracer, into a processor that drops them; CPU µs per request, 5 blocks of
 * 100,000 requests after 20,000 of warm-up, the median and each block.
 */
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { LeanNodeTracerProvider } from '../src/observability/leanTracer';
import { endLookupServerSpan, STATEMENT } from './tracingFixtures';
const keep = { onStart() {}, onEnd: (_s: ReadableSpan) => {}, forceFlush: async () => {}, shutdown: async () => {} };
const provider = new LeanNodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'enrich' }), spanProcessors: [keep] });
const server = provider.getTracer('enrich');
const pg = provider.getTracer('enrich/pg');
let i = 0;
const request = () => {
  const span = server.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET' } }, ROOT_CONTEXT);
  const ctx = trace.setSpan(ROOT_CONTEXT, span);
  for (let k = 0; k < 3; k++) pg.startSpan('pg.query:lookup_person enrich', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.namespace': 'enrich', 'server.address': '127.0.0.1', 'server.port': 5432, 'db.operation.name': 'SELECT', 'db.query.text': STATEMENT } }, ctx).end();
  endLookupServerSpan(span, i++);
};
for (let k = 0; k < 20000; k++) request();
const r: number[] = [];
for (let n = 0; n < 5; n++) {
  const c = process.cpuUsage();
  for (let k = 0; k < 100000; k++) request();
  const d = process.cpuUsage(c);
  r.push((d.user + d.system) / 100000);
}
r.sort((a, b) => a - b);
console.log('µs per request (1 server + 3 statement spans), median of 5:', r[2]!.toFixed(2), r.map((x) => x.toFixed(2)).join(' '));
