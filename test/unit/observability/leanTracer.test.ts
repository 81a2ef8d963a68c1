/**
 * The lean tracer (src/observability/leanTracer.ts) against the SDK's own, side by side: the same
 * calls on both, and the finished spans (what the processors and the OTLP exporter read) compared
 * field by field, so a difference in behaviour, or an SDK upgrade that moves the Tracer's internals
 * the lean one reads, fails here.
 */
import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AlwaysOffSampler, InMemorySpanExporter, SimpleSpanProcessor, TraceIdRatioBasedSampler, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { LeanNodeTracerProvider, LeanSpan, LeanTracer } from '../../../src/observability/leanTracer';

type Options = ConstructorParameters<typeof NodeTracerProvider>[0];

function pair(options: Options = {}) {
  const sdkExporter = new InMemorySpanExporter();
  const leanExporter = new InMemorySpanExporter();
  const sdk = new NodeTracerProvider({ ...options, spanProcessors: [new SimpleSpanProcessor(sdkExporter)] });
  const lean = new LeanNodeTracerProvider({ ...options, spanProcessors: [new SimpleSpanProcessor(leanExporter)] });
  return { sdk: sdk.getTracer('t', '1.2.3'), lean: lean.getTracer('t', '1.2.3'), sdkExporter, leanExporter, leanProvider: lean };
}

/** What an exporter sends of a span, times and ids left out (they differ by nature). */
function shape(s: ReadableSpan) {
  return {
    name: s.name,
    kind: s.kind,
    attributes: s.attributes,
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes, droppedAttributesCount: e.droppedAttributesCount ?? 0 })),
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.map((l) => ({ context: l.context, attributes: l.attributes })),
    droppedLinksCount: s.droppedLinksCount,
    status: s.status,
    ended: s.ended,
    scope: { name: s.instrumentationScope.name, version: s.instrumentationScope.version },
    resource: s.resource.attributes,
    traceFlags: s.spanContext().traceFlags,
    hasParent: Boolean(s.parentSpanContext),
  };
}

/** Runs the same script on both tracers; returns both finished span lists. */
function run(options: Options, script: (tracer: Tracer) => void) {
  const p = pair(options);
  script(p.sdk);
  script(p.lean);
  return { sdk: p.sdkExporter.getFinishedSpans(), lean: p.leanExporter.getFinishedSpans(), p };
}

describe('LeanTracer', () => {
  it('is what the provider hands out, one per scope', () => {
    const { lean, leanProvider } = pair();
    expect(lean).toBeInstanceOf(LeanTracer);
    expect(leanProvider.getTracer('t', '1.2.3')).toBe(lean);
    expect(leanProvider.getTracer('other')).not.toBe(lean);
  });

  it('finishes the same spans as the SDK: attributes, name change, status, events, links, parent', () => {
    const link = { context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED }, attributes: { why: 'follows' } };
    const error = Object.assign(new Error('boom'), { name: 'TypeError' });
    const { sdk, lean } = run({}, (tracer) => {
      const root = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', skipped: undefined, n: 3, ok: true, list: ['a', 'b'] }, links: [link] });
      root.updateName('getPerson');
      root.setAttribute('http.response.status_code', 200);
      root.setAttribute('', 'empty key ignored');
      root.setAttribute('nullish', undefined as never);
      root.setAttributes({ 'enrich.workspace_id': 'ws', n: 4 });
      root.addEvent('step', { stage: 'blocking', count: 2 });
      root.recordException(error);
      root.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      root.setStatus({ code: SpanStatusCode.UNSET });
      const child = tracer.startSpan('pg.query:SELECT db', { kind: SpanKind.CLIENT, attributes: { 'db.query.text': 'select $1' } }, trace.setSpan(ROOT_CONTEXT, root));
      child.setStatus({ code: SpanStatusCode.OK });
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored after OK' });
      child.end();
      root.end();
      root.setAttribute('after.end', 1);
      root.updateName('after end');
      root.end();
    });
    expect(lean.map(shape)).toEqual(sdk.map(shape));
    expect(lean).toHaveLength(2);
    const [child, root] = lean as unknown as [ReadableSpan, ReadableSpan];
    expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(root.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('applies the span limits as the SDK does (attribute count and value length, events, links)', () => {
    const { sdk, lean } = run({ spanLimits: { attributeCountLimit: 3, attributeValueLengthLimit: 5, eventCountLimit: 2, linkCountLimit: 1 } }, (tracer) => {
      const span = tracer.startSpan('limited', { attributes: { a: 'abcdefgh', b: ['abcdefgh', 'x'], c: 1 } });
      span.setAttribute('d', 'dropped');
      span.setAttribute('a', 'replaced-and-cut');
      for (let i = 0; i < 4; i++) span.addEvent(`e${i}`, { v: 'long value' });
      span.addLinks([
        { context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 } },
        { context: { traceId: '0af7651916cd43dd8448eb211c80319d', spanId: 'b7ad6b7169203332', traceFlags: 1 } },
      ]);
      span.end();
    });
    expect(lean.map(shape)).toEqual(sdk.map(shape));
    expect(lean[0]!.attributes).toEqual({ a: 'repla', b: ['abcde', 'x'], c: 1 });
    expect(lean[0]!.droppedAttributesCount).toBe(1);
  });

  it('follows the sampler: nothing recorded when it says so, the same decisions for the same trace ids', () => {
    const off = run({ sampler: new AlwaysOffSampler() }, (tracer) => {
      const span = tracer.startSpan('x');
      expect(span.isRecording()).toBe(false);
      expect(span).not.toBeInstanceOf(LeanSpan);
      span.end();
    });
    expect(off.lean).toHaveLength(0);
    expect(off.sdk).toHaveLength(0);
    // A ratio sampler decides by trace id: children of the same parents get the same decisions.
    // Fixed but varied ids: the ratio sampler XORs the id's 8-hex-digit words, so a repeated pattern
    // would accumulate to 0 (always sampled), and an all-zero id is invalid (a random trace instead).
    const parents = Array.from({ length: 200 }, (_, i) => ({ traceId: createHash('md5').update(`parent ${i}`).digest('hex'), spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE }));
    const ratio = run({ sampler: new TraceIdRatioBasedSampler(0.3) }, (tracer) => {
      for (const p of parents) tracer.startSpan('child', {}, trace.setSpanContext(ROOT_CONTEXT, p)).end();
    });
    expect(ratio.lean.map((s) => s.spanContext().traceId)).toEqual(ratio.sdk.map((s) => s.spanContext().traceId));
    expect(ratio.lean.length).toBeGreaterThan(0);
    expect(ratio.lean.length).toBeLessThan(parents.length);
  });

  it('times a span by the wall clock at its start and the monotonic clock for its duration', async () => {
    const { lean } = run({}, (tracer) => {
      const span: Span = tracer.startSpan('timed');
      const until = Date.now() + 20;
      while (Date.now() < until);
      span.end();
    });
    const s = lean[0]!;
    const startMs = s.startTime[0] * 1000 + s.startTime[1] / 1e6;
    expect(Math.abs(startMs - Date.now())).toBeLessThan(5000);
    const durationMs = s.duration[0] * 1000 + s.duration[1] / 1e6;
    expect(durationMs).toBeGreaterThanOrEqual(19);
    expect(s.endTime[0] * 1000 + s.endTime[1] / 1e6 - startMs).toBeCloseTo(durationMs, 3);
    // An explicit start time (epoch milliseconds), as the SDK takes it.
    const explicit = run({}, (tracer) => tracer.startSpan('at', { startTime: new Date('2026-01-02T03:04:05.678Z') }).end(new Date('2026-01-02T03:04:06.000Z')));
    expect(explicit.lean[0]!.startTime).toEqual(explicit.sdk[0]!.startTime);
    expect(explicit.lean[0]!.endTime).toEqual(explicit.sdk[0]!.endTime);
    expect(explicit.lean[0]!.duration).toEqual(explicit.sdk[0]!.duration);
  });
});
