/**
 * A leaner Tracer and Span than @opentelemetry/sdk-trace's, behind the SDK's own provider: the only
 * piece of the trace SDK this service replaces (loaded by otel.ts, so never without tracing).
 *
 * Why: in bench:tracing-pipeline's CPU profile the SDK's span work was the largest single share of a
 * traced request after Node 20's promise hooks, for what a span of this service needs (a name, ids,
 * times, a handful of attributes). Per span the SDK's `startSpan` sanitises the attributes twice
 * (two copies of the object), records its own `otel.sdk.span.*` metrics (two attribute objects and a
 * closure per span, into a no-op meter here, as the provider is given no meter provider), and each
 * `setAttribute` checks its arguments and the limits through several calls; the span keeps a dozen
 * fields it computes at start. This one does the same things that reach the exporter and nothing
 * else: the same sampler, id generator, span limits, resource, scope and span processors (taken
 * from the SDK's own Tracer for the same scope, so every `OTEL_*` setting the SDK reads still
 * applies), the same ReadableSpan shape the processors and the OTLP exporter read, the same rules
 * for status, events, links, attribute count and value length limits.
 * What it leaves out: the SDK's `otel.sdk.span.started/live` self-metrics (not collected by this
 * service), and the SDK's validation warnings for invalid attribute values (an invalid value is
 * dropped all the same). The instrumentations (undici) and the service's spans all go through it:
 * `LeanNodeTracerProvider.getTracer` hands it out.
 * test/unit/observability/leanTracer.test.ts holds it to the SDK's behaviour, span for span.
 */
import type { Attributes, AttributeValue, Context, Exception, HrTime, Link, Span, SpanAttributes, SpanContext, SpanKind, SpanOptions, SpanStatus, TimeInput, Tracer } from '@opentelemetry/api';
import { isAttributeValue, isTracingSuppressed } from '@opentelemetry/core';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { IdGenerator, ReadableSpan, Sampler, SpanLimits, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { performance } from 'node:perf_hooks';

type Api = typeof import('@opentelemetry/api');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const api = require('@opentelemetry/api') as Api;

/** What the SDK's Tracer holds (its TypeScript-private fields; the unit test fails if they move). */
interface SdkTracerInternals {
  instrumentationScope: InstrumentationScope;
  _sampler: Sampler;
  _spanLimits: SpanLimits;
  _idGenerator: IdGenerator;
  _resource: Resource;
  _spanProcessor: SpanProcessor;
}

/** The SDK's provider, handing out lean tracers built on the SDK's own (one per scope, cached). */
export class LeanNodeTracerProvider extends NodeTracerProvider {
  private readonly lean = new Map<string, Tracer>();

  override getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.lean.get(key);
    if (!tracer) {
      const sdk = super.getTracer(name, version, options) as unknown as SdkTracerInternals;
      tracer = isSdkTracer(sdk) ? new LeanTracer(sdk) : (sdk as unknown as Tracer);
      this.lean.set(key, tracer);
    }
    return tracer;
  }
}

function isSdkTracer(t: Partial<SdkTracerInternals>): t is SdkTracerInternals {
  return Boolean(t._sampler && t._spanLimits && t._idGenerator && t._resource && t._spanProcessor && t.instrumentationScope);
}

/** The status of every span until setStatus: one frozen object. */
const UNSET: SpanStatus = Object.freeze({ code: api.SpanStatusCode.UNSET });
/** Constant for the process (a getter through the performance object each time otherwise). */
const TIME_ORIGIN = performance.timeOrigin;

/** The empty links and events of most spans: one frozen array, replaced on the first add. */
const NONE = Object.freeze([]) as unknown as never[];

export class LeanTracer implements Tracer {
  readonly instrumentationScope: InstrumentationScope;
  private readonly sampler: Sampler;
  private readonly ids: IdGenerator;
  readonly resource: Resource;
  readonly processor: SpanProcessor;
  readonly countLimit: number;
  readonly lengthLimit: number;
  readonly eventLimit: number;
  readonly linkLimit: number;

  constructor(sdk: SdkTracerInternals) {
    this.instrumentationScope = sdk.instrumentationScope;
    this.sampler = sdk._sampler;
    this.ids = sdk._idGenerator;
    this.resource = sdk._resource;
    this.processor = sdk._spanProcessor;
    const limits = sdk._spanLimits;
    this.countLimit = limits.attributeCountLimit ?? Infinity;
    this.lengthLimit = limits.attributeValueLengthLimit ?? Infinity;
    this.eventLimit = limits.eventCountLimit ?? Infinity;
    this.linkLimit = limits.linkCountLimit ?? Infinity;
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = api.context.active()): Span {
    if (options.root) context = api.trace.deleteSpan(context);
    if (isTracingSuppressed(context)) return api.trace.wrapSpanContext(api.INVALID_SPAN_CONTEXT);
    const parentSpan = api.trace.getSpan(context);
    const parent = parentSpan?.spanContext();
    const spanId = this.ids.generateSpanId();
    let traceId: string;
    let traceState = undefined as SpanContext['traceState'];
    let validParent: SpanContext | undefined;
    // A parent that is one of these spans has ids this tracer made or took from a valid parent:
    // the API's check (two regular expressions over the ids) is left for the others (a remote
    // `traceparent`, a non-recording span).
    if (!parent || (!(parentSpan instanceof LeanSpan) && !api.trace.isSpanContextValid(parent))) {
      traceId = this.ids.generateTraceId();
    } else {
      traceId = parent.traceId;
      traceState = parent.traceState;
      validParent = parent;
    }
    const kind = options.kind ?? api.SpanKind.INTERNAL;
    const links = options.links ?? NONE;
    const attributes = options.attributes ?? {};
    const sampled = this.sampler.shouldSample(context, traceId, name, kind, attributes, links);
    const spanContext: SpanContext = {
      traceId,
      spanId,
      traceFlags: sampled.decision === api.SamplingDecision.RECORD_AND_SAMPLED ? api.TraceFlags.SAMPLED : api.TraceFlags.NONE,
      traceState: sampled.traceState ?? traceState,
    };
    if (sampled.decision === api.SamplingDecision.NOT_RECORD) return api.trace.wrapSpanContext(spanContext);
    const span = new LeanSpan(this, name, kind, spanContext, validParent, options.startTime);
    span.setAttributes(attributes);
    if (sampled.attributes) span.setAttributes(sampled.attributes);
    for (const link of links) span.addLink(link);
    this.processor.onStart(span as unknown as Parameters<SpanProcessor['onStart']>[0], context);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const opts = rest.length >= 2 ? (rest[0] as SpanOptions) : undefined;
    const ctx = rest.length === 3 ? (rest[1] as Context) : api.context.active();
    const span = this.startSpan(name, opts, ctx);
    return api.context.with(api.trace.setSpan(ctx, span), fn as (s: Span) => ReturnType<F>, undefined, span);
  }
}

function hrTimeOf(ms: number): HrTime {
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** An explicit time given to startSpan, end or addEvent, as the SDK reads it. */
function explicitTime(input: TimeInput): HrTime {
  if (Array.isArray(input)) return input as HrTime;
  if (input instanceof Date) return hrTimeOf(input.getTime());
  // A number: performance.now()-relative when it is below the present (as the SDK takes it), else epoch ms.
  return input <= performance.now() ? hrTimeOf(TIME_ORIGIN + input) : hrTimeOf(input);
}

/** A span as the processors and exporters read it (ReadableSpan) and as the API writes it (Span). */
export class LeanSpan implements Span {
  attributes: Attributes = {};
  links: Link[] = NONE;
  events: TimedEvent[] = NONE;
  /** Replaced, never changed in place, by setStatus (the scrubber changes only a status with a message). */
  status: SpanStatus = UNSET;
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  ended = false;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  private count = 0;
  /** The wall clock's offset from performance.now() at the start (as the SDK: the span's start is
   * the wall clock, its duration the monotonic clock's). */
  private readonly offset: number;

  constructor(
    private readonly tracer: LeanTracer,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    startTime: TimeInput | undefined,
  ) {
    const now = Date.now();
    this.offset = now - (performance.now() + TIME_ORIGIN);
    this.startTime = startTime === undefined ? hrTimeOf(now) : explicitTime(startTime);
  }

  private timeOf(input: TimeInput | undefined): HrTime {
    if (input !== undefined) return explicitTime(input);
    return hrTimeOf(TIME_ORIGIN + performance.now() + this.offset);
  }

  get resource(): Resource {
    return this.tracer.resource;
  }
  get instrumentationScope(): InstrumentationScope {
    return this.tracer.instrumentationScope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    if (value == null || this.ended || key.length === 0) return this;
    if (typeof value === 'object' && !isAttributeValue(value)) return this;
    if (!(key in this.attributes)) {
      if (this.count >= this.tracer.countLimit) {
        this.droppedAttributesCount++;
        return this;
      }
      this.count++;
    }
    this.attributes[key] = this.truncate(value);
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const key in attributes) if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  private truncate(value: AttributeValue): AttributeValue {
    const limit = this.tracer.lengthLimit;
    if (limit === Infinity) return value;
    if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v)) as AttributeValue;
    return value;
  }

  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    if (this.tracer.eventLimit === 0) {
      this.droppedEventsCount++;
      return this;
    }
    if (this.events === NONE) this.events = [];
    if (this.events.length >= this.tracer.eventLimit) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    let attributes: SpanAttributes | undefined;
    if (isTimeInput(attributesOrTime)) {
      if (!isTimeInput(time)) time = attributesOrTime;
    } else attributes = attributesOrTime;
    const clean: Attributes = {};
    for (const key in attributes) {
      const value = attributes[key];
      if (key.length && value != null && isAttributeValue(value)) clean[key] = this.truncate(value);
    }
    this.events.push({ name, attributes: clean, time: this.timeOf(time), droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.tracer.linkLimit === 0) {
      this.droppedLinksCount++;
      return this;
    }
    if (this.links === NONE) this.links = [];
    if (this.links.length >= this.tracer.linkLimit) {
      this.links.shift();
      this.droppedLinksCount++;
    }
    this.links.push(link.attributes ? { context: link.context, attributes: { ...link.attributes } } : { context: link.context });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final, a message only with ERROR.
    if (this.ended || status.code === api.SpanStatusCode.UNSET || this.status.code === api.SpanStatusCode.OK) return this;
    this.status = status.code === api.SpanStatusCode.ERROR && typeof status.message === 'string' ? { code: status.code, message: status.message } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    let end = this.timeOf(endTime);
    let seconds = end[0] - this.startTime[0];
    let nanos = end[1] - this.startTime[1];
    if (nanos < 0) {
      seconds -= 1;
      nanos += 1e9;
    }
    if (seconds < 0) {
      end = this.startTime;
      seconds = 0;
      nanos = 0;
    }
    this.endTime = end;
    this.duration = [seconds, nanos];
    const processor = this.tracer.processor;
    const readable = this as unknown as ReadableSpan & Parameters<NonNullable<SpanProcessor['onEnding']>>[0];
    processor.onEnding?.(readable);
    this.ended = true;
    processor.onEnd(readable);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: SpanAttributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }
}

function isTimeInput(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number');
}
