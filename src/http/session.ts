/**
 * The dashboard's session cookie at the edge: reads it into a principal for the authenticate
 * middleware (only when no Authorization header is sent), checks `Origin` on state-changing calls
 * made with it, and writes and clears it.
 */
import type { Knex } from 'knex';
import { AppError } from '../domain/errors';
import { resolveSession, SESSION_IDLE_SECONDS, type SessionContext } from '../domain/workspaces/sessions';
import type { Principal } from '../domain/auth/principal';
import type { AppContext } from './state';

export const SESSION_COOKIE = 'enrich_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Same origin as this server (scheme, host and port as the request reached it, proxies trusted). */
export function checkOrigin(ctx: AppContext, required: boolean, publicOrigin?: string): void {
  const origin = ctx.get('origin');
  if (!origin && !required) return;
  if (origin !== (publicOrigin ?? ctx.origin)) {
    throw new AppError(
      'ORIGIN_NOT_ALLOWED',
      'The Origin of this request is not this server: state-changing calls with a dashboard session must come from the dashboard.',
    );
  }
}

/** The resolver authenticate() calls when a request carries no Authorization header. */
export function sessionAuthenticator(db: Knex, opts: { idleSeconds?: number; publicOrigin?: string } = {}) {
  return async (ctx: AppContext): Promise<Principal | undefined> => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (!token) return undefined;
    const found = await resolveSession(db, token, opts.idleSeconds ?? SESSION_IDLE_SECONDS);
    if (!found) return undefined;
    if (!SAFE_METHODS.has(ctx.method)) checkOrigin(ctx, true, opts.publicOrigin);
    ctx.state.session = found;
    return found.principal;
  };
}

function cookie(ctx: AppContext, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** Secure over HTTPS, and always behind a trusted proxy (which terminates TLS). */
export function setSessionCookie(ctx: AppContext, token: string, trustProxy: boolean): void {
  // The browser's copy lives at most as long as an idle session; the server decides anyway.
  ctx.append('Set-Cookie', cookie(ctx, token, SESSION_IDLE_SECONDS, ctx.secure || trustProxy));
}

export function clearSessionCookie(ctx: AppContext, trustProxy: boolean): void {
  ctx.append('Set-Cookie', cookie(ctx, '', 0, ctx.secure || trustProxy));
}

export type { SessionContext };
