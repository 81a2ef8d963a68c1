/**
 * JSON bodies, parsed only for operations that take one, after authentication and rate limiting so
 * unauthenticated callers cannot make the server read large bodies. @koa/bodyparser does the parsing
 * (size limit, charset, strict JSON); this wrapper adds the 415 and the "body required" answers it
 * would otherwise hide behind an empty object.
 */
import { bodyParser } from '@koa/bodyparser';
import { AppError, validationError } from '../../domain/errors';
import type { AppContext, Step } from '../state';

export function jsonBody(limitBytes: number): Step {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: limitBytes, jsonStrict: true, encoding: 'utf-8' });
  // Only operations that take a JSON body wait for anything here; a body of another type (a list
  // job's CSV or NDJSON upload) is left unread for its handler to stream.
  return (ctx) => (takesJson(ctx) ? read(ctx) : undefined);
  function takesJson(ctx: AppContext): boolean {
    const body = ctx.state.operation?.requestBody as { content?: Record<string, unknown> } | undefined;
    return Boolean(body && (!body.content || body.content['application/json']));
  }
  async function read(ctx: AppContext): Promise<void> {
    const declaredLength = ctx.request.length;
    const chunked = Boolean(ctx.get('transfer-encoding'));
    if (!chunked && !declaredLength) {
      throw validationError('Request body is required: send a JSON object with Content-Type: application/json');
    }
    if (!ctx.is('application/json', '+json')) {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type must be application/json (got ${ctx.get('content-type') || 'none'})`,
      );
    }
    try {
      await parse(ctx as never, async () => undefined);
    } catch (err) {
      throw bodyError(ctx.get('content-encoding'), err);
    }
    ctx.state.body = (ctx.request as { body?: unknown }).body;
  }
}

/**
 * The body parser's failures that the request causes. Its own errors carry an HTTP status (413
 * size, 400 JSON, 415 unknown Content-Encoding) and are mapped by the edge; an error without one
 * while a Content-Encoding is being decoded comes from the decompression stream (zlib or brotli:
 * corrupt or truncated data), so the body does not match its encoding: a 400.
 */
function bodyError(encoding: string, err: unknown): unknown {
  const e = err as { status?: number; errno?: unknown };
  if (e?.status === undefined && typeof e?.errno === 'number' && encoding && encoding.toLowerCase() !== 'identity') {
    return validationError(`Request body does not match its Content-Encoding "${encoding}" (corrupt or truncated compressed data)`);
  }
  if (e?.status === 415) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${encoding}" is not supported: send gzip, deflate, br or identity`);
  }
  return err;
}
