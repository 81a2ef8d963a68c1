/**
 * The OpenTelemetry SDK, loaded only by `tracing.ts` `startTracing` when the standard `OTEL_*`
 * variables ask for traces: never imported otherwise.
 *
 * Why these pieces rather than `@opentelemetry/sdk-node`: sdk-node also brings the metrics and logs
 * SDKs and the gRPC exporter (with @grpc/grpc-js), which this service does not use (its metrics are
 * Prometheus, its logs pino); the trace SDK for Node, the two OTLP/HTTP trace exporters and three
 * instrumentations are the part that is needed. The server span of each request is the edge's own
 * (tracing.ts traceServerRequest: incoming `traceparent` honoured, no header or URL recorded), not
 * @opentelemetry/instrumentation-http's, which cost about half of a traced request's overhead in bench:tracing.
 * The instrumentations:
 * - undici (the live source and webhook receivers: a client span, `traceparent` sent),
 * - pg: each statement, parameterised text only, only inside a trace (so the workers' polling
 *   makes no root spans): the service's own lean wrapper (pgSpans.ts), not
 *   @opentelemetry/instrumentation-pg, which was the largest single share of a traced lookup's cost.
 * Koa's instrumentation is left out: it adds a span per middleware, and the edge names the server
 * span by its operation instead.
 * The provider is the SDK's (NodeTracerProvider: sampler, limits, ids, resource, processors, the
 * AsyncLocalStorage context manager, all read from OTEL_*), handing out the lean Tracer/Span of
 * leanTracer.ts instead of the SDK's: the same finished spans for less work per span.
 *
 * Settings are the standard variables, read by the SDK itself: OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL (`http/protobuf`, the
 * default, or `http/json`; `grpc` is not bundled and falls back to http/protobuf with a warning),
 * OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_* (batching), OTEL_TRACES_EXPORTER (`otlp`, `console`, `none`).
 */
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter, type SpanProcessor, type Span, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { LeanNodeTracerProvider } from './leanTracer';
import { useLeanEncoding } from './otlpProtobuf';
import { instrumentPg, PG_SCOPE } from './pgSpans';
import { scrubSpan, type ScrubbableSpan } from './spanScrub';
import { buildInfo } from './version';

/** What tracing.ts keeps (its TracingHandle; declared here too, so this module imports nothing of it). */
export function startSdk(env: NodeJS.ProcessEnv, serviceName: string): { shutdown(): Promise<void>; describe: string } {
  const { exporter, describe } = chooseExporter(env);
  const { version, commit } = buildInfo();
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        'service.name': serviceName,
        'service.version': version,
        ...(commit ? { 'vcs.ref.head.revision': commit } : {}),
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults above.
    .merge(detectResources({ detectors: [envDetector] }));
  // The SDK's provider (sampler, limits, ids, processors, context manager from the OTEL_* variables)
  // handing out the lean tracer of leanTracer.ts.
  const provider = new LeanNodeTracerProvider({
    resource,
    // The scrubber runs first, so what the batch exports is already clean.
    spanProcessors: [new ScrubbingProcessor(), new BatchSpanProcessor(exporter)],
  });
  // W3C trace context only: baggage is not propagated (it could carry anything a caller put in it).
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  instrumentPg(require('@opentelemetry/api') as typeof import('@opentelemetry/api'));
  return {
    describe,
    shutdown: () => provider.shutdown(),
  };
}

/** The exporter the standard variables name; OTLP over HTTP in protobuf (the default) or JSON. */
function chooseExporter(env: NodeJS.ProcessEnv): { exporter: SpanExporter; describe: string } {
  const kind = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',')[0]!.trim().toLowerCase() || 'otlp';
  if (kind === 'console') return { exporter: new ConsoleSpanExporter(), describe: 'console' };
  if (kind !== 'otlp') process.stderr.write(`tracing: OTEL_TRACES_EXPORTER=${kind} is not bundled; using otlp\n`);
  let protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim().toLowerCase();
  if (protocol !== 'http/json' && protocol !== 'http/protobuf') {
    process.stderr.write(`tracing: OTLP protocol ${protocol} is not bundled; using http/protobuf (a collector's port 4318)\n`);
    protocol = 'http/protobuf';
  }
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces');
  // The exporters read the endpoint, headers, timeout and compression from the same variables.
  const exporter =
    protocol === 'http/json'
      ? // eslint-disable-next-line @typescript-eslint/no-require-imports
        new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
      : // eslint-disable-next-line @typescript-eslint/no-require-imports
        new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  // http/protobuf: the same bytes, encoded by otlpProtobuf.ts (once, most of them copied from a
  // cache) instead of the SDK's two-pass serializer; ENRICH_TRACING_SDK_ENCODER=1 keeps the SDK's.
  if (protocol === 'http/protobuf' && env.ENRICH_TRACING_SDK_ENCODER !== '1') useLeanEncoding(exporter);
  return { exporter, describe: `${protocol} to ${new URL(endpoint).origin}${new URL(endpoint).pathname}` };
}

/**
 * Removes what must not leave the process, at the end of every span (after the instrumentations
 * have set all they set): query strings from URLs, quoted values from SQL text, error messages
 * (spanScrub.ts).
 */
class ScrubbingProcessor implements SpanProcessor {
  onStart(): void {}
  onEnding(span: Span): void {
    // The statement spans (the most numerous: one or more per request) carry only what pgSpans.ts
    // put there, already clean (the text scrubbed at the start, the SQLSTATE and never a message):
    // they skip it. Every other span is scrubbed (the server span, inSpan's, undici's).
    if (span.instrumentationScope.name === PG_SCOPE) return;
    // The SDK's own objects, writable until the span ends (setAttribute cannot delete a key).
    scrubSpan(span as unknown as ScrubbableSpan);
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
