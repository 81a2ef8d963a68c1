/**
 * The plain-HTTP receiver `enrich listen` forwards to in the listen tests: it records every
 * request's headers and body and answers 204; and listening on a free loopback port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Forwarded {
  headers: Record<string, string>;
  body: string;
}

/** A server that pushes each request it gets onto `received` and answers 204 (not yet listening). */
export function recordingReceiver(received: Forwarded[]): http.Server {
  return http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.statusCode = 204;
      res.end();
    });
  });
}

/** Listens on a free port of 127.0.0.1: the port. */
export const listenOn = (server: http.Server): Promise<number> =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
