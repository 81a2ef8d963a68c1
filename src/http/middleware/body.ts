/**
 * JSON bodies, parsed only for operations that take one, after authentication and rate limiting so
 * unauthenticated callers cannot make the server read large bodies. @koa/bodyparser does the parsing
 * (size limit, charset, strict JSON); this wrapper adds the 415 and the "body required" answers it
 * would otherwise hide behind an empty object.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { AppError, validationError } from '../../domain/errors';
import type { RequestState } from '../state';

export function jsonBody(limitBytes: number): Middleware<RequestState> {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: limitBytes, jsonStrict: true, encoding: 'utf-8' });
  return async (ctx, next) => {
    if (!ctx.state.operation?.requestBody) return next();
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
    await parse(ctx as never, async () => undefined);
    ctx.state.body = (ctx.request as { body?: unknown }).body;
    return next();
  };
}
