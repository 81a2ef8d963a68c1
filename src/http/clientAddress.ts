import type { AppContext } from './state';

/** The address anonymous limits key on: the socket peer, or X-Forwarded-For when TRUST_PROXY is set. */
export function clientAddress(ctx: AppContext): string {
  return ctx.ip || ctx.req.socket.remoteAddress || 'unknown';
}
