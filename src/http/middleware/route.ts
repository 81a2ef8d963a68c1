/**
 * Matches the request to a contract operation (404 unknown path, 405 wrong method). HEAD is
 * answered wherever GET is (RFC 9110 9.3.2): it runs as the GET, and Koa sends the headers
 * without the body.
 */
import type { OpenAPIBackend } from 'openapi-backend';
import { AppError, notFound } from '../../domain/errors';
import { API_ROOT } from '../contract';
import { RouteTable } from '../routeTable';
import type { Step } from '../state';

/** Whether a path is under the API root (the contract's operations; the rest is /metrics, /docs, /dashboard). */
export function isApiPath(path: string): boolean {
  return path === API_ROOT || path.startsWith(API_ROOT_SLASH);
}
const API_ROOT_SLASH = `${API_ROOT}/`;

/** The first step of the API pipeline (requests under the API root only, see app.ts). */
export function route(api: OpenAPIBackend): Step {
  // Built once: the same decisions as api.router.matchOperation, without its per-request work.
  const table = new RouteTable(api);
  return (ctx) => {
    const path = ctx.path;
    // openapi-backend ignores a trailing slash, but the contract has no such paths: /person/ is not
    // /person (Prism's validating proxy found the disagreement).
    if (path.endsWith('/')) throw notFound(`No such endpoint: ${ctx.method} ${path}`);
    const match = table.match(routedMethod(ctx.method), path);
    if (typeof match !== 'string') {
      ctx.state.operation = match;
      return;
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
