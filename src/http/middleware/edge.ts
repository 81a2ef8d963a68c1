/**
 * The outermost middleware, and the one error path: assigns the request id, turns every error into
 * the contract's body, and adds `quotas` + `metadata` (and the rate-limit headers) to every JSON
 * response, errors included. Nothing below it sets those.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import { classifyDatabaseError } from '../../db/errors';
import { AppError, notFound } from '../../domain/errors';
import type { QuotaState, RateLimits } from '../../domain/ratelimit/rateLimits';
import { clientAddress } from '../clientAddress';
import { API_ROOT } from '../contract';
import type { RequestState } from '../state';
import { rateLimitHeaders } from '../rateLimitHeaders';
import { containsRawJson, RawJson, spliceData, toJsonText } from '../rawJson';

export interface EdgeDeps {
  logger: Logger;
  rateLimits: RateLimits;
  anonymousRateLimit: number;
}

export function edge(deps: EdgeDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    ctx.state.startedAt = process.hrtime.bigint();
    ctx.state.requestId = newRequestId();
    ctx.set('x-request-id', ctx.state.requestId);
    // Answers carry personal data and per-caller quotas: no cache may keep or share them.
    if (ctx.path.startsWith(API_ROOT)) ctx.set('Cache-Control', 'no-store, private');
    try {
      await next();
      if (ctx.body === undefined && ctx.status === 404) throw notFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const appError = toAppError(err);
      if (appError.code === 'SERVICE_UNAVAILABLE') {
        // An outage, not a bug: one line per request, without a stack.
        deps.logger.warn({ err: String(err), request_id: ctx.state.requestId, path: ctx.path }, 'dependency unavailable');
      } else if (appError.status >= 500) {
        deps.logger.error({ err, request_id: ctx.state.requestId, path: ctx.path }, 'request failed');
      }
      ctx.status = appError.status;
      for (const [name, value] of Object.entries(appError.headers)) ctx.set(name, value);
      ctx.body = { error: appError.message, code: appError.code };
    }
    if (!ctx.state.raw && isPlainObject(ctx.body)) {
      const quotas = ctx.state.quotas ?? (await anonymousQuotas(deps, clientAddress(ctx)));
      const limits = rateLimitHeaders(quotas, deps.rateLimits.windowSeconds);
      ctx.set('RateLimit-Policy', limits['RateLimit-Policy']);
      ctx.set('RateLimit', limits.RateLimit);
      const metadata = {
        request_id: ctx.state.requestId,
        execution_ms: Number((process.hrtime.bigint() - ctx.state.startedAt) / 1_000_000n),
      };
      const body = ctx.body as Record<string, unknown>;
      if (body.data instanceof RawJson && hasOnlyData(body)) {
        // The single-record answer (lookups): its envelope written directly, the record spliced in.
        ctx.body = `{"data":${body.data.text},"quotas":${JSON.stringify(serializeQuotas(quotas))},"metadata":${JSON.stringify(metadata)}}`;
        ctx.type = 'application/json; charset=utf-8';
      } else {
        const { data, ...rest } = body;
        const envelope = { quotas: serializeQuotas(quotas), metadata };
        if (data instanceof RawJson) {
          ctx.body = spliceData(data, { ...rest, ...envelope });
          ctx.type = 'application/json; charset=utf-8';
        } else if (containsRawJson(body)) {
          // Stored records deeper in the body (bulk results): serialized here, with each one spliced in.
          ctx.body = toJsonText({ ...body, ...envelope });
          ctx.type = 'application/json; charset=utf-8';
        } else {
          ctx.body = { ...body, ...envelope };
        }
      }
    }
    if (deps.logger.isLevelEnabled('debug')) {
      deps.logger.debug(
        { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status },
        'request',
      );
    }
  };
}

/** Responses that were not rate-limited themselves (401, unknown paths) show the caller's anonymous window. */
async function anonymousQuotas(deps: EdgeDeps, address: string): Promise<QuotaState> {
  try {
    return await deps.rateLimits.peekAnonymous(address, deps.anonymousRateLimit);
  } catch {
    // Never fail an answer because the limiter store is unreachable: report a fresh window.
    const resetAt = new Date(Date.now() + deps.rateLimits.windowSeconds * 1000);
    return { workspace: { limit: deps.anonymousRateLimit, remaining: deps.anonymousRateLimit, resetAt } };
  }
}

function serializeQuotas(q: QuotaState) {
  const win = (w: QuotaState['workspace']) => ({ limit: w.limit, remaining: w.remaining, reset_at: w.resetAt.toISOString() });
  return { rate_limit: q.member ? { workspace: win(q.workspace), member: win(q.member) } : { workspace: win(q.workspace) } };
}

/** `req_` and 32 hex digits: a random UUID without its dashes (randomUUID draws from a cached entropy pool). */
function newRequestId(): string {
  const u = randomUUID();
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
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
