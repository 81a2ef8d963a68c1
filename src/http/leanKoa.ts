/**
 * Koa with less of its per-request machinery around answers the edge has already written.
 *
 * Koa's `handleRequest` attaches an `on-finished` listener to every response (ee-first closures on
 * the response and its socket, added and removed per request) whose only work is to pass a socket
 * error to `ctx.onerror`, which for an app that is `silent` and an answer already sent does
 * nothing; then `respond()` works out again what the edge knows (type, length, empty statuses).
 * The edge (middleware/edge.ts `writeAnswer`) writes the enveloped JSON answers itself and sets
 * `ctx.respond = false`; for those this callback stops there. Every other answer (HEAD, 204/304,
 * streams, the non-contract routes' bodies) goes through Koa's own `handleRequest` and `respond`
 * unchanged, after the middleware ran.
 *
 * What the profile of `GET /health` showed (docs/benchmarks.md): on-finished, ee-first and the
 * EventEmitter work they cause were 2-3 % of the samples.
 */
import Koa from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Composed<S> = (ctx: Koa.ParameterizedContext<S>) => Promise<void>;
interface KoaInternals<S> {
  compose(middleware: Koa.Middleware<S>[]): Composed<S>;
  handleRequest(ctx: Koa.ParameterizedContext<S>, fn: Composed<S>): Promise<void>;
}

export class LeanKoa<S = Koa.DefaultState> extends Koa<S> {
  override callback(): ReturnType<Koa<S>['callback']> {
    // An AsyncLocalStorage context per request is Koa's own business: use its callback unchanged.
    if (this.ctxStorage) return super.callback();
    const internals = this as unknown as KoaInternals<S>;
    const fn = internals.compose(this.middleware);
    if (!this.listenerCount('error')) this.on('error', this.onerror);
    return (req, res) => {
      const ctx = this.createContext<S>(req as IncomingMessage, res as ServerResponse);
      // As Koa: an answer nobody set is a 404.
      res.statusCode = 404;
      return fn(ctx).then(
        () => (ctx.respond === false ? undefined : respondThroughKoa(internals, ctx)),
        (err: Error) => ctx.onerror(err),
      );
    };
  }
}

/**
 * Koa's own handleRequest (its on-finished listener, its respond) for an answer the middleware have
 * already produced: handleRequest presets the status to 404 before it runs the middleware, so the
 * "middleware" given to it puts back the status they set.
 */
function respondThroughKoa<S>(koa: KoaInternals<S>, ctx: Koa.ParameterizedContext<S>): Promise<void> {
  const status = ctx.res.statusCode;
  return koa.handleRequest(ctx, () => {
    ctx.res.statusCode = status;
    return Promise.resolve();
  });
}
