/**
 * The listening HTTP server around the app's callback (main.ts listens with it; tests that need a
 * real socket use it too): the bounds on what a slow or greedy client can hold, and the server's
 * own answers to requests its parser refuses, in the envelope (clientError.ts).
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_HEADER_BYTES } from './clientError';

export interface HttpServerOptions {
  /** A client that sends its headers or body slowly holds a socket for at most these. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Open connections beyond this are closed at once. */
  maxConnections: number;
}

export function createHttpServer(
  app: { koa: { callback(): http.RequestListener }; answerClientError: (err: Error & { code?: string }, socket: Duplex) => void },
  opts: HttpServerOptions,
): http.Server {
  const server = http.createServer(
    {
      requestTimeout: opts.requestTimeoutMs,
      headersTimeout: opts.headersTimeoutMs,
      // How often those two are checked (Node's default, 30 s, would let a slow client overstay them).
      connectionsCheckingInterval: Math.min(1000, opts.headersTimeoutMs),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    app.koa.callback(),
  );
  server.maxConnections = opts.maxConnections;
  // Keep-alive longer than common load balancer idle timeouts so they never reuse a socket we closed.
  server.keepAliveTimeout = 65_000;
  server.on('clientError', app.answerClientError);
  return server;
}
