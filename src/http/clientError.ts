/**
 * The HTTP server's own answers: requests Node's parser refuses before any middleware runs (headers
 * or URL over MAX_HEADER_BYTES, a malformed request, headers or body not in within the
 * timeouts). Node's default wrote a bare status line with no body (a long cursor or If-None-Match
 * got an empty 431: issue 32); these answers are in the envelope like every other: the stable
 * code, a request id (header and body), the client address's anonymous window (the credentials
 * are never read: the request was not understood), and `Connection: close`.
 *
 * Registered on the server's 'clientError' event (http/server.ts); the socket is then ours to
 * answer and close.
 */
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger';
import type { QuotaState } from '../domain/ratelimit/rateLimits';
import type { ErrorCode } from '../domain/errors';
import { newRequestId, quotasJson } from './middleware/edge';
import type { Limits } from './middleware/limits';
import { rateLimitPolicy, rateLimitRemaining } from './rateLimitHeaders';

/**
 * Request line and headers together, at most (Node's default, set explicitly so that a
 * NODE_OPTIONS `--max-http-header-size` cannot change it unseen, and so the 431 can name it).
 */
export const MAX_HEADER_BYTES = 16 * 1024;

interface ParserAnswer {
  status: number;
  reason: string;
  code: ErrorCode;
  message: string;
}

/** What each of Node's client errors means for the client (the statuses Node itself would send). */
export function parserAnswer(errCode: string | undefined, maxHeaderBytes: number): ParserAnswer {
  switch (errCode) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'REQUEST_HEADERS_TOO_LARGE',
        message:
          `The request line and headers together exceed ${maxHeaderBytes} bytes (the URL counts, and a long cursor or If-None-Match is the usual cause): ` +
          'send a shorter one (a search body has no such limit).',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE', message: 'The chunk extensions of the request body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: 'Request Timeout',
        code: 'REQUEST_TIMEOUT',
        message: 'The request (its headers, or its body) did not arrive within the server\'s timeout: send it again, at once.',
      };
    default:
      return { status: 400, reason: 'Bad Request', code: 'VALIDATION_ERROR', message: `The request is not valid HTTP/1.1 (${errCode ?? 'unreadable'}).` };
  }
}

/** One complete HTTP/1.1 response in the envelope, as text. */
export function envelopeResponse(answer: ParserAnswer, requestId: string, quotas: QuotaState, windowSeconds: number): string {
  const body = `{"error":${JSON.stringify(answer.message)},"code":"${answer.code}","quotas":${quotasJson(quotas)},"metadata":{"request_id":"${requestId}","execution_ms":0}}`;
  return [
    `HTTP/1.1 ${answer.status} ${answer.reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    'Cache-Control: no-store, private',
    `RateLimit-Policy: ${rateLimitPolicy(quotas, windowSeconds)}`,
    `RateLimit: ${rateLimitRemaining(quotas, Date.now())}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** How long a socket we answered may stay open for the client to read the answer. */
const LINGER_MS = 2000;

/** The 'clientError' listener. */
export function clientErrorHandler(deps: { limits: Limits; logger: Logger; maxHeaderBytes: number }) {
  const answered = new WeakSet<Duplex>();
  return (err: Error & { code?: string }, socket: Duplex): void => {
    // A second error of a socket already answered (its parser refuses each later chunk again):
    // the answer is on its way, and the socket closes after it.
    if (answered.has(socket)) return;
    // A reset by the client: nothing to say to it.
    if (err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    answered.add(socket);
    // An answer already under way on this socket (a keep-alive request being answered) must not be corrupted.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = parserAnswer(err.code, deps.maxHeaderBytes);
    const requestId = newRequestId();
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
    deps.logger.info({ request_id: requestId, status: answer.status, code: answer.code, parser: err.code, address }, 'request refused by the HTTP parser');
    const write = (quotas: QuotaState) => {
      if (!socket.writable) return socket.destroy();
      // Half-close after the answer, and read (and drop) what the client still sends meanwhile:
      // closing with unread data would reset the connection and could lose the answer on its way.
      socket.end(envelopeResponse(answer, requestId, quotas, deps.limits.windowSeconds));
      socket.on('data', () => undefined);
      socket.resume();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    const quotas = deps.limits.quotasOfAddress(address);
    if (quotas instanceof Promise) quotas.then(write, () => socket.destroy());
    else write(quotas);
  };
}
