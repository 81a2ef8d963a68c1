/**
 * The dashboard's session cookie at the edge: reads it into a principal for the authenticate
 * middleware (only when no Authorization header is sent), checks that every call made with it
 * comes from the dashboard's own origin, and writes and clears it.
 *
 * Every call, GET included: reads are not harmless here. `GET /person/realtime` is metered, and
 * SameSite=Strict does not stop a page on another port of the same host (same site), so an
 * `<img src>` there spent the workspace's calls with the cookie (issue 32).
 */
import type { Knex } from 'knex';
import { AppError } from '../domain/errors';
import { resolveSession, SESSION_IDLE_SECONDS, type SessionContext } from '../domain/workspaces/sessions';
import type { Principal } from '../domain/auth/principal';
import type { AppContext } from './state';

export const SESSION_COOKIE = 'enrich_session';

/**
 * The server's own origin: PUBLIC_URL's when set, otherwise the scheme and Host the request reached
 * this server with (X-Forwarded-Proto/-Host only behind a trusted proxy, as Koa reads them). Not
 * Koa's `ctx.origin`: in Koa 3 that getter answers the request's own `Origin` header, so comparing
 * with it compared the header with itself and let every site through.
 */
export function ownOrigin(ctx: AppContext, publicOrigin?: string): string {
  if (publicOrigin) return publicOrigin;
  const fromHost = `${ctx.protocol}://${ctx.host}`;
  // Through URL, as a browser writes Origin: lower case, default port dropped (Host: x:80 is http://x).
  return originOf(fromHost) ?? fromHost;
}

/** A URL's origin (scheme://host[:port], default ports dropped), or undefined when it is not a URL. */
function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * Whether a request was made by this server's own pages (CSRF defence for cookie-authenticated
 * calls): `Origin` when sent (`null`, sent from sandboxed frames and some redirects, is refused);
 * without it `Sec-Fetch-Site` (only `same-origin` passes); without either the origin of `Referer`.
 * A request carrying none of the three comes from no browser page; it passes only when `required`
 * is false (sign-in, which a script may post with an API key). The server's own origin is
 * `ownOrigin`; another port on the same host is another origin.
 *
 * What browsers send on a GET (the case that matters since GETs are checked too): Chromium and
 * Firefox send `Origin` on a GET only for CORS requests (a cross-origin fetch), never for
 * same-origin fetches, `<img>` loads or navigations; they send `Sec-Fetch-Site` on every request to
 * a potentially trustworthy origin (https, localhost, 127.0.0.1), `same-site` for another port of
 * the same host. Over plain http to another host no `Sec-Fetch-*` is sent, so the dashboard's page
 * sets `Referrer-Policy: same-origin` (routes/dashboard.ts, and the same `<meta name="referrer">` in dashboard/index.html): its own calls then carry `Referer`,
 * and no other site learns its URL. An `<img>` on another page carries that page's `Referer`, or
 * none under `no-referrer`: refused either way.
 */
export function checkOrigin(ctx: AppContext, required: boolean, publicOrigin?: string): void {
  const own = ownOrigin(ctx, publicOrigin);
  const origin = ctx.get('origin');
  const fetchSite = ctx.get('sec-fetch-site');
  const referer = ctx.get('referer');
  let sameOrigin: boolean;
  if (origin) sameOrigin = originOf(origin) === own;
  else if (fetchSite) sameOrigin = fetchSite === 'same-origin';
  else if (referer) sameOrigin = originOf(referer) === own;
  else sameOrigin = !required;
  if (!sameOrigin) {
    throw new AppError(
      'ORIGIN_NOT_ALLOWED',
      'The Origin of this request is not this server: calls with a dashboard session must come from the dashboard.',
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
    checkOrigin(ctx, true, opts.publicOrigin);
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
