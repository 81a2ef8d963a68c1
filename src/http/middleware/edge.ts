/**
 * The outermost middleware, and the one error path: assigns the request id, turns every error into
 * the contract's body, and adds `quotas` + `metadata` (and the rate-limit headers) to every JSON
 * response, errors included. Nothing below it sets those. Once the answer is final it observes the
 * request's metrics, counts it for the workspace's usage, writes the access log line and names the
 * trace's server span (one frame for all of it).
 */
import { randomFillSync } from 'node:crypto';
import type http from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import { classifyDatabaseError } from '../../db/errors';
import { AppError, notFound } from '../../domain/errors';
import type { QuotaState } from '../../domain/ratelimit/rateLimits';
import type { Limits } from './limits';
import { API_ROOT } from '../contract';
import type { RequestState } from '../state';
import { rateLimitPolicy, rateLimitRemaining } from '../rateLimitHeaders';
import { Stream } from 'node:stream';
import type { Metrics } from '../../observability/metrics';
import type { RequestCounter } from '../requestCounter';
import { containsRawJson, RawJson, spliceData, toJsonBytes } from '../rawJson';
import { activeTraceId, describeServerSpan, traceServerRequest, tracingOn } from '../../observability/tracing';

export interface EdgeDeps {
  logger: Logger;
  /** The windows every answer shows (limits.ts owns them). */
  limits: Limits;
  /** Observed here, with the final status, errors included (omitted: not observed). */
  metrics?: Metrics;
  requestCounter?: RequestCounter;
  /** One info line per answered request (ACCESS_LOG; off: only the debug line below). */
  accessLog?: boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function edge(deps: EdgeDeps): Middleware<RequestState> {
  const { logger, metrics, requestCounter } = deps;
  const accessLog = deps.accessLog ?? false;
  const { limits } = deps;
  const windowSeconds = limits.windowSeconds;
  const handle: Middleware<RequestState> = async (ctx, next) => {
    const startedAt = process.hrtime.bigint();
    const requestId = newRequestId();
    ctx.state.startedAt = startedAt;
    ctx.state.requestId = requestId;
    const res = ctx.res;
    // Answers carry personal data and per-caller quotas: no cache may keep or share them.
    const noStore = ctx.path.startsWith(API_ROOT);
    // The request id and Cache-Control are written with the answer (writeAnswer: one writeHead with
    // every header) or, for any other answer, set on the response below before Koa sends it.
    let answered = false;
    try {
      try {
        await next();
        if (ctx.body === undefined && ctx.state.answer === undefined && ctx.status === 404) throw notFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
      } catch (err) {
        const appError = toAppError(err);
        if (appError.code === 'SERVICE_UNAVAILABLE') {
          // An outage, not a bug: one line per request, without a stack.
          logger.warn({ err: String(err), request_id: requestId, path: ctx.path }, 'dependency unavailable');
        } else if (appError.status >= 500) {
          logger.error({ err, request_id: requestId, path: ctx.path }, 'request failed');
        }
        ctx.status = appError.status;
        for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
        // Through Koa's setter: it also ends a stream body that was being answered.
        ctx.state.answer = undefined;
        ctx.body = { error: appError.message, code: appError.code };
      }
      // An answer the server failed to give does not use up the caller's window (limits.ts).
      if (ctx.status >= 500 && ctx.state.granted) await limits.giveBack(ctx);
      // A handler's JSON body waits in state.answer (dispatch.ts); anything else is Koa's body.
      const body = ctx.state.answer ?? ctx.body;
      if (ctx.state.answer === undefined) ctx.state.headers = undefined;
      if (body instanceof Stream) {
        // A streamed answer (a list job's results): the rate-limit headers, no envelope.
        const quotas = await limits.quotasFor(ctx);
        res.setHeader('RateLimit-Policy', rateLimitPolicy(quotas, windowSeconds));
        res.setHeader('RateLimit', rateLimitRemaining(quotas, Date.now()));
      } else if (!ctx.state.raw && isPlainObject(body)) {
        const quotas = await limits.quotasFor(ctx);
        const now = Date.now();
        // Every header of the answer in one list, written once (writeAnswer); the body is written
        // here as JSON text with its Content-Type, so neither Koa's type lookup (mime-types) nor its
        // own JSON.stringify runs; the bytes are the same.
        const headers: Headers = ['x-request-id', requestId];
        if (noStore) headers.push('Cache-Control', 'no-store, private');
        headers.push('RateLimit-Policy', rateLimitPolicy(quotas, windowSeconds), 'RateLimit', rateLimitRemaining(quotas, now), 'Content-Type', JSON_TYPE);
        const own = ctx.state.headers;
        if (own) for (const name in own) headers.push(name, own[name]!);
        const executionMs = Number((process.hrtime.bigint() - startedAt) / 1_000_000n);
        // (The request id is `req_` and hex digits: nothing in it needs escaping.)
        const envelopeJson = `"quotas":${quotasJson(quotas)},"metadata":{"request_id":"${requestId}","execution_ms":${executionMs}}}`;
        answered = true;
        if (body.data instanceof RawJson && hasOnlyData(body)) {
          // The single-record answer (lookups): its envelope written directly, the record spliced in.
          writeAnswer(ctx, headers, `{"data":${body.data.text},${envelopeJson}`);
        } else if (!(body.data instanceof RawJson) && isSimpleBody(body) && !containsRawJson(body)) {
          // JSON.stringify({ ...body, quotas, metadata }) without the copy: the body's own text,
          // the envelope's members appended.
          const text = JSON.stringify(body);
          writeAnswer(ctx, headers, text === '{}' ? `{${envelopeJson}` : `${text.slice(0, -1)},${envelopeJson}`);
        } else {
          const { data, ...rest } = body;
          const envelope = { quotas: serializeQuotas(quotas), metadata: { request_id: requestId, execution_ms: executionMs } };
          if (data instanceof RawJson) writeAnswer(ctx, headers, spliceData(data, { ...rest, ...envelope }));
          // Stored records deeper in the body (bulk results): each one written in place as it was read,
          // the body never joined into one string (rawJson.ts toJsonBytes).
          else if (containsRawJson(body)) writeAnswer(ctx, headers, toJsonBytes({ ...body, ...envelope }));
          else writeAnswer(ctx, headers, JSON.stringify({ ...body, ...envelope }));
        }
      }
      if (!answered) setIdentityHeaders(ctx, requestId, noStore);
      if (!accessLog && logger.isLevelEnabled('debug')) {
        logger.debug({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status }, 'request');
      }
    } catch (err) {
      // Failed past the one error path (the limiter's store): Koa answers it, with the request id.
      if (!answered) setIdentityHeaders(ctx, requestId, noStore);
      throw err;
    } finally {
      requestCounter?.countAnswer(ctx);
      metrics?.observeRequest(ctx, startedAt);
      if (tracing) {
        const operation = ctx.state.operation;
        describeServerSpan({ operationId: operation?.operationId, route: operation ? API_ROOT + operation.path : undefined, workspaceId: ctx.state.principal?.workspaceId, requestId, status: ctx.status });
      }
      if (accessLog && logger.isLevelEnabled('info')) logAccess(logger, ctx, requestId, startedAt);
    }
  };
  // With tracing on (decided before the app is built), each request runs inside its server span,
  // a child of the caller's `traceparent` if it sent one; off, the edge is exactly the handler above.
  const tracing = tracingOn();
  if (!tracing) return handle;
  // Prometheus scrapes are not requests anyone follows.
  return (ctx, next) => (ctx.path === '/metrics' ? handle(ctx, next) : traceServerRequest(ctx.method, ctx.req.headers, () => handle(ctx, next)));
}

/** Statuses whose answers carry no body (Koa's `statuses.empty`). */
const BODILESS = new Set([204, 205, 304]);

/** Header names and values, alternating (the form `writeHead` takes without building an object). */
type Headers = (string | number)[];

/**
 * The request id on every answer, and Cache-Control on the API's, for the answers Koa sends
 * (errors past the envelope, streams, the non-contract routes, HEAD and 304), with the handler's
 * own headers of a JSON body: set on the node response directly (Koa's ctx.set would only check
 * and convert them).
 */
function setIdentityHeaders(ctx: Parameters<Middleware<RequestState>>[0], requestId: string, noStore: boolean): void {
  const res = ctx.res;
  if (res.headersSent) return;
  res.setHeader('x-request-id', requestId);
  if (noStore) res.setHeader('Cache-Control', 'no-store, private');
  const own = ctx.state.headers;
  if (own) for (const name in own) res.setHeader(name, own[name]!);
}

/**
 * Writes an enveloped JSON answer to the socket and tells Koa the answer is given (`ctx.respond =
 * false`, leanKoa.ts): Koa's body setter and respond() would only work out again its type and
 * length. Its headers (`headers`, Content-Length added here) go out in one `writeHead`: when
 * nothing else set one on the response, Node writes the list as it is, without a `setHeader` per
 * header (each a name check, a lower-cased copy and a slot in the response's header object, read
 * back to build the header block). HEAD, the bodiless statuses (a 304 of the lookups) and a
 * response that can no longer be written go through Koa's body setter and respond() as before,
 * which send the headers without the body.
 */
function writeAnswer(ctx: Parameters<Middleware<RequestState>>[0], headers: Headers, text: string | Buffer): void {
  ctx.state.answer = undefined;
  const res = ctx.res;
  if (ctx.method === 'HEAD' || BODILESS.has(ctx.status) || !ctx.response.writable) {
    for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i] as string, headers[i + 1]!);
    // As text, so the body setter keeps its JSON type (a Buffer would be answered as binary).
    ctx.body = typeof text === 'string' ? text : text.toString('utf8');
    return;
  }
  headers.push('Content-Length', Buffer.byteLength(text));
  ctx.respond = false;
  // Headers set earlier on the response (a handler's own, error headers) are kept: writeHead merges.
  res.writeHead(res.statusCode, headers as unknown as http.OutgoingHttpHeaders);
  res.end(text);
}

/**
 * The access log line: what an operator greps for, and nothing a caller sent that identifies a person.
 * The path without its query string (the lookups' query carries usernames, emails and names; the
 * paths themselves carry only opaque ids); no header (never a key or a cookie).
 */
function logAccess(logger: Logger, ctx: Parameters<Middleware<RequestState>>[0], requestId: string, startedAt: bigint): void {
  const operation = ctx.state.operation;
  logger.info(
    {
      request_id: requestId,
      method: ctx.method,
      // The contract's template (`/api/v1/monitors/{id}`) when the request matched an operation; an
      // API path that matched none is not written (it is whatever the caller typed).
      route: operation ? API_ROOT + operation.path : ctx.path.startsWith(API_ROOT) ? undefined : ctx.path,
      operation: operation?.operationId,
      status: ctx.status,
      duration_ms: Number(process.hrtime.bigint() - startedAt) / 1e6,
      workspace_id: ctx.state.principal?.workspaceId,
      trace_id: activeTraceId(),
    },
    'request',
  );
}

function serializeQuotas(q: QuotaState) {
  const win = (w: QuotaState['workspace']) => ({ limit: w.limit, remaining: w.remaining, reset_at: w.resetAt.toISOString() });
  return { rate_limit: q.member ? { workspace: win(q.workspace), member: win(q.member) } : { workspace: win(q.workspace) } };
}

/** JSON.stringify(serializeQuotas(q)), written directly (numbers and an ISO date need no escaping). */
export function quotasJson(q: QuotaState): string {
  const workspace = windowJson(q.workspace);
  return q.member ? `{"rate_limit":{"workspace":${workspace},"member":${windowJson(q.member)}}}` : `{"rate_limit":{"workspace":${workspace}}}`;
}

function windowJson(w: QuotaState['workspace']): string {
  return `{"limit":${jsonNumber(w.limit)},"remaining":${jsonNumber(w.remaining)},"reset_at":"${isoTime(w.resetAt)}"}`;
}

/** A window ends at the same instant for every request in it: its ISO text is formatted once. */
let lastIso = { ms: NaN, text: '' };
function isoTime(at: Date): string {
  const ms = at.getTime();
  if (ms !== lastIso.ms) lastIso = { ms, text: at.toISOString() };
  return lastIso.text;
}

function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/**
 * `req_` and 32 hex digits (16 random bytes). The bytes come from a pool filled by the system's
 * CSPRNG 256 ids at a time, as randomUUID's own cached pool does; each id is one hex slice of it,
 * without a UUID's formatting and the five slices that took its dashes out.
 */
export function newRequestId(): string {
  if (idOffset === ID_POOL.length) {
    randomFillSync(ID_POOL);
    idOffset = 0;
  }
  const start = idOffset;
  idOffset += 16;
  return `req_${ID_POOL.toString('hex', start, idOffset)}`;
}
const ID_POOL = Buffer.alloc(16 * 256);
let idOffset = ID_POOL.length;

/** A body whose own members the envelope can follow as text: no `quotas` or `metadata` of its own to replace, no toJSON. */
function isSimpleBody(body: Record<string, unknown>): boolean {
  return !Object.hasOwn(body, 'quotas') && !Object.hasOwn(body, 'metadata') && typeof body.toJSON !== 'function';
}

/** Whether `data` is the body's one own enumerable member. */
function hasOnlyData(body: Record<string, unknown>): boolean {
  for (const key in body) if (key !== 'data' || !Object.prototype.hasOwnProperty.call(body, key)) return false;
  return true;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** Seconds a client is asked to wait after a 503 SERVICE_UNAVAILABLE (documented in the contract). */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable (its database did not answer); retry later', {
    'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
  });

/** Errors from Koa and its body parser carry an HTTP status; map the ones input can cause. */
function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; code?: string; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large (limit 1 MiB)');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
  if (status === 400) {
    const detail = e.type === 'entity.parse.failed' || e.message?.includes('JSON') ? 'Malformed JSON body' : e.message;
    return new AppError('VALIDATION_ERROR', detail || 'Bad request');
  }
  const fault = classifyDatabaseError(err);
  if (fault === 'unavailable') return serviceUnavailable();
  if (fault === 'invalid_input') return new AppError('VALIDATION_ERROR', 'A parameter has a value the service cannot use');
  return new AppError('INTERNAL_ERROR', 'Internal error; the request id identifies it in the server logs');
}
