/**
 * Tracing, as the rest of the code sees it: a few calls that do nothing, and load nothing, unless
 * an OTLP exporter is configured through the standard OpenTelemetry variables. The SDK, the
 * exporter and the instrumentations live in `otel.ts`, which only `startTracing` loads (a lazy
 * require), so a service without `OTEL_*` settings never imports any of them; every helper here
 * then returns after one comparison. docs/operations.md lists the spans and their attributes.
 *
 * `startTracing` must run before the modules it instruments (http, pg, undici) are first required:
 * the CLI calls it at the top of `enrich serve` and `enrich worker`, before loading the server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Span, SpanOptions, Tracer } from '@opentelemetry/api';

/** The part of @opentelemetry/api used here, present only while tracing runs. */
type Api = typeof import('@opentelemetry/api');

let api: Api | undefined;
/** The service's tracer, looked up once (the API's lookup builds a key and goes through a proxy). */
let tracer: Tracer | undefined;

export interface TracingHandle {
  /** Flushes the spans still queued and stops the exporter (at shutdown). */
  shutdown(): Promise<void>;
  /** Where the spans go, for the startup line: the endpoint and protocol, or the console. */
  describe: string;
}

/**
 * Whether the operator asked for traces, by the standard variables: an OTLP endpoint (all signals
 * or traces only), or OTEL_TRACES_EXPORTER naming an exporter; OTEL_SDK_DISABLED=true and
 * OTEL_TRACES_EXPORTER=none turn it off whatever else is set.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

let started: TracingHandle | undefined;

/**
 * Starts the SDK when `tracingRequested(env)`; otherwise returns undefined having loaded nothing.
 * Once per process (a second call returns the first handle).
 */
export function startTracing(env: NodeJS.ProcessEnv, serviceName = 'enrich'): TracingHandle | undefined {
  if (started) return started;
  if (!tracingRequested(env)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const otel = require('./otel') as typeof import('./otel');
  started = otel.startSdk(env, serviceName);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  api = require('@opentelemetry/api') as Api;
  tracer = api.trace.getTracer(serviceName);
  return started;
}

/** Flushes and stops the SDK if startTracing started it (the server's shutdown calls it last), within timeoutMs. */
export async function stopTracing(timeoutMs = 5000): Promise<void> {
  const handle = started;
  if (!handle) return;
  // The last export waits for the collector: bounded, so a collector that is down or stalled
  // never holds the shutdown (the spans still queued are then lost, and only they).
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([handle.shutdown().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}

/** For the startup line: where spans go, or `off`. */
export const tracingDescription = (): string => started?.describe ?? 'off';

/** Whether spans are being recorded in this process. */
export const tracingOn = (): boolean => api !== undefined;

/** The span of the current context (the request's server span inside a request), if tracing runs. */
export function activeSpan(): Span | undefined {
  return api?.trace.getActiveSpan();
}

/** The trace id of the current context, for the access log; undefined when tracing is off. */
export function activeTraceId(): string | undefined {
  const span = api?.trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  return api!.isSpanContextValid(span.spanContext()) && traceFlags !== undefined ? traceId : undefined;
}

/**
 * Names the request's server span by its contract operation (never its URL, which carries the
 * identifiers of people in its query string) and adds the workspace and route. Called once by the
 * edge with the final answer.
 */
export function describeServerSpan(fields: { operationId?: string; route?: string; workspaceId?: string; requestId: string; status: number }): void {
  const span = api?.trace.getActiveSpan();
  if (!span) return;
  if (fields.operationId) span.updateName(fields.operationId);
  span.setAttribute('http.response.status_code', fields.status);
  // Semantic conventions: a server span is an error for 5xx only (4xx is the caller's).
  if (fields.status >= 500) span.setStatus({ code: api!.SpanStatusCode.ERROR });
  span.setAttribute('enrich.request_id', fields.requestId);
  if (fields.operationId) span.setAttribute('enrich.operation_id', fields.operationId);
  if (fields.route) span.setAttribute('http.route', fields.route);
  if (fields.workspaceId) span.setAttribute('enrich.workspace_id', fields.workspaceId);
}

/**
 * Runs one HTTP request inside its server span (the edge calls it, outermost): the parent is the
 * caller's `traceparent` when it sent one (W3C trace context), else the span starts a trace. The
 * span is named by the method until the edge knows the operation (describeServerSpan). Our own
 * span rather than @opentelemetry/instrumentation-http's: that one records a dozen attributes
 * (the URL with its query string among them) and wraps the response, which cost about half of the
 * traced request's overhead in bench:tracing.
 */
export function traceServerRequest<T>(method: string, headers: IncomingHttpHeaders, fn: () => Promise<T>): Promise<T> {
  if (!api) return fn();
  const a = api;
  const parent = a.propagation.extract(a.ROOT_CONTEXT, headers);
  const span = tracer!.startSpan(method, { kind: a.SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  // A trace this request starts and the sampler left out (OTEL_TRACES_SAMPLER=traceidratio and
  // friends): nothing of it would be exported, so it runs outside any trace context, and the pg and
  // undici instrumentations stop at their first check (no parent span) instead of building
  // attributes, non-recording spans and context-bound callbacks for every statement; that work is
  // what made one-in-ten sampling cost almost as much as tracing everything. What is given up: its
  // outgoing calls carry no `traceparent` (a receiver decides on its own), and the access log line
  // has no trace id (there is no trace to find). A caller's `traceparent` is always kept, sampled or not.
  if (!span.isRecording() && !a.trace.getSpan(parent)) return fn();
  // then(ended, failed) rather than finally: the same ending, two promises fewer per request (each
  // one an AsyncLocalStorage hook call on Node 20).
  return a.context.with(a.trace.setSpan(parent, span), fn).then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.end();
      throw err;
    },
  );
}

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * Runs `fn` inside a new span (a child of the current one, else the root of a trace of its own:
 * a refresh round, a delivery attempt). An error marks the span failed (its type, never its
 * message) and is rethrown. With tracing off, or a new trace the sampler leaves out, it is
 * `fn(undefined)`.
 */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: Span | undefined) => Promise<T>, options: { root?: boolean } = {}): Promise<T> {
  if (!api) return fn(undefined);
  const a = api;
  const spanOptions: SpanOptions = { attributes: definedOnly(attributes), root: options.root };
  const parent = options.root ? a.ROOT_CONTEXT : a.context.active();
  const span = tracer!.startSpan(name, spanOptions, parent);
  // A new trace the sampler left out (a refresh round, a delivery attempt): run outside any trace
  // context, as traceServerRequest does, so its statements and calls cost no span work either.
  if (!span.isRecording() && !a.trace.getSpan(parent)) return fn(undefined);
  return a.context.with(a.trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      // The error's type only: a message may quote what a caller sent (an identifier of a person).
      span.setAttribute('error.type', err instanceof Error ? err.name : 'error');
      span.setStatus({ code: a.SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed without an exception (an answer that means failure: a 5xx from a receiver). */
export function markSpanFailed(span: Span | undefined, message: string): void {
  if (span && api) span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}

function definedOnly(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}
