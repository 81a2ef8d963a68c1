/**
 * Matches the request to a contract operation (404 unknown path, 405 wrong method). HEAD is
 * answered wherever GET is (RFC 9110 9.3.2): it runs as the GET, and Koa sends the headers
 * without the body.
 */
import type { Middleware } from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import { AppError, notFound } from '../../domain/errors';
import { API_ROOT } from '../contract';
import { RouteTable } from '../routeTable';
import type { RequestState } from '../state';

export function route(api: OpenAPIBackend): Middleware<RequestState> {
  // Built once: the same decisions as api.router.matchOperation, without its per-request work.
  const table = new RouteTable(api);
  return (ctx, next) => {
    if (ctx.path !== API_ROOT && !ctx.path.startsWith(`${API_ROOT}/`)) return next();
    // openapi-backend ignores a trailing slash, but the contract has no such paths: /person/ is not
    // /person (Prism's validating proxy found the disagreement).
    if (ctx.path.endsWith('/')) throw notFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
    const match = table.match(routedMethod(ctx.method), ctx.path);
    if (typeof match !== 'string') {
      ctx.state.operation = match;
      return next();
    }
    if (match === 'method_not_allowed') {
      const allowed = api.router
        .getOperations()
        .filter((op) => pathMatches(op.path, ctx.path.slice(API_ROOT.length)))
        .flatMap((op) => (op.method.toUpperCase() === 'GET' ? ['GET', 'HEAD'] : [op.method.toUpperCase()]));
      throw new AppError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`, {
        Allow: [...new Set(allowed)].join(', '),
      });
    }
    throw notFound(`No such endpoint: ${ctx.method} ${ctx.path}`);
  };
}

function pathMatches(template: string, path: string): boolean {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}/?$`).test(path);
}

/** The method a request is routed and validated as: HEAD as GET. */
export const routedMethod = (method: string) => (method === 'HEAD' ? 'GET' : method);
