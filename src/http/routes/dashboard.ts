/**
 * The workspace dashboard's files (dashboard/, built by Vite into dashboard/dist by `npm run
 * build:dashboard`), served at /dashboard outside the contract. The files hold no data: every
 * figure comes from the contract's operations, which answer 401 without a session. A strict CSP:
 * nothing from outside this origin, no inline script or style, no framing.
 */
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { PROJECT_ROOT } from '../../paths';
import { AppError } from '../../domain/errors';
import type { RequestState } from '../state';

export const DASHBOARD_DIST = path.join(PROJECT_ROOT, 'dashboard', 'dist');

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

export function dashboardRoutes(): Router<RequestState> {
  const router = new Router<RequestState>();
  const send = async (ctx: Parameters<Parameters<typeof router.get>[1]>[0], file: string) => {
    let body: Buffer;
    try {
      body = await fs.promises.readFile(file);
    } catch {
      throw new AppError('NOT_FOUND', 'The dashboard has not been built: run `npm run build:dashboard` (npm start does).');
    }
    ctx.state.raw = true;
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    // Its own calls carry Referer (the API's session check reads it where a plain-http origin gets
    // no Sec-Fetch-Site: http/session.ts); no other origin is ever told the dashboard's URL.
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.body = body;
  };
  // One route for both spellings (the router ignores a trailing slash): relative asset paths need the slash.
  router.get('/dashboard', (ctx) => {
    if (ctx.path === '/dashboard') {
      ctx.state.raw = true;
      ctx.redirect('/dashboard/');
      return;
    }
    return send(ctx, path.join(DASHBOARD_DIST, 'index.html'));
  });
  router.get('/dashboard/assets/:file', (ctx) => {
    const name = ctx.params.file;
    // Vite's hashed file names only: nothing that could walk out of the folder.
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) throw new AppError('NOT_FOUND', 'No such dashboard file.');
    return send(ctx, path.join(DASHBOARD_DIST, 'assets', name));
  });
  return router;
}
