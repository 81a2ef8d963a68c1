/** Hands the request to openapi-backend, which validates it and calls the operation's handler. */
import type { Middleware } from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import type { RequestState } from '../state';
import type { HandlerResult } from '../handlers/types';

export function dispatch(api: OpenAPIBackend): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.state.operation) return next();
    const result = (await api.handleRequest(
      {
        method: ctx.method,
        path: ctx.path,
        // openapi-backend coerces query values in place; give it this request's own copy.
        query: { ...ctx.query } as Record<string, string | string[]>,
        headers: ctx.headers as Record<string, string | string[]>,
        body: ctx.state.body,
      },
      ctx,
    )) as HandlerResult;
    ctx.status = result.status ?? 200;
    ctx.body = result.body;
  };
}
