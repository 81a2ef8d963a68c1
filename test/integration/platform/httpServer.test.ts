/**
 * The listening server (main.ts) bounds what a slow or greedy client can hold: headers and the
 * whole request must arrive within their timeouts, and connections beyond the cap are closed at
 * once. Before, a slow request body held its socket for Node's default of 300 s.
 * Bounds here are timeouts plus a generous margin: they say "does not hang", not "is fast".
 *
 * What the server's parser refuses (headers or URL over the limit, a malformed request, a timeout)
 * is answered in the envelope with a request id, like every other answer (issue 32: Node's bare
 * 431 had an empty body); checked on a real socket, against the contract.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../../src/config';
import { startServer, type RunningServer } from '../../../src/main';
import { testDatabaseUrl } from '../../helpers/harness';
import { assertInContract } from '../../helpers/contractValidator';

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const MARGIN_MS = 5000;

let server: RunningServer;
let port: number;

beforeAll(async () => {
  server = await startServer({
    config: {
      ...loadConfig({}),
      port: 0,
      databaseUrl: testDatabaseUrl(),
      logLevel: 'silent',
      httpHeadersTimeoutMs: HEADERS_TIMEOUT_MS,
      httpRequestTimeoutMs: REQUEST_TIMEOUT_MS,
      httpMaxConnections: 3,
    },
  });
  port = Number(new URL(server.url).port);
}, 60_000);

afterAll(() => server?.stop());

/** Opens a socket, writes `data`, and resolves with what came back and when the server closed it. */
function exchange(data: string): Promise<{ reply: string; closedAfterMs: number; socket: net.Socket }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
    let reply = '';
    socket.on('data', (d) => (reply += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ reply, closedAfterMs: performance.now() - started, socket }));
  });
}

/** A raw HTTP/1.1 answer: status, headers (lower-case names), and the body parsed as JSON. */
function parse(reply: string): { status: number; headers: Record<string, string>; body: { code?: string; error?: string; metadata?: { request_id?: string } } } {
  const split = reply.indexOf('\r\n\r\n');
  expect(split).toBeGreaterThan(0);
  const [statusLine, ...lines] = reply.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const text = reply.slice(split + 4);
  expect(Buffer.byteLength(text)).toBe(Number(headers['content-length']));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(text) };
}

/** The parser's answer in the envelope: its status and code, a request id in header and body, inside the contract. */
async function expectEnvelope(method: string, path: string, reply: string, status: number, code: string) {
  const answer = parse(reply);
  expect([answer.status, answer.body.code]).toEqual([status, code]);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers.connection).toBe('close');
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(answer.body.metadata?.request_id).toBe(answer.headers['x-request-id']);
  await assertInContract(method, path, answer);
  return answer;
}

describe('the HTTP server', () => {
  it('closes a connection whose headers do not arrive within the headers timeout, with 408 in the envelope', async () => {
    const { reply, closedAfterMs } = await exchange('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n');
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1000 + MARGIN_MS);
    await expectEnvelope('GET', '/api/v1/health', reply, 408, 'REQUEST_TIMEOUT');
  });

  it('a URL over the header limit (a long cursor): 431 REQUEST_HEADERS_TOO_LARGE in the envelope, naming the limit', async () => {
    const path = `/api/v1/events?after=${'a'.repeat(20_000)}`;
    const { reply, closedAfterMs } = await exchange(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(closedAfterMs).toBeLessThan(MARGIN_MS + 2000);
    const answer = await expectEnvelope('GET', path, reply, 431, 'REQUEST_HEADERS_TOO_LARGE');
    expect(answer.body.error).toContain('16384 bytes');
    // The window shown is the client address's (the API key is never read).
    expect(answer.headers['ratelimit-policy']).toMatch(/^"workspace";q=[0-9]+;w=[0-9]+$/);
  });

  it('a long If-None-Match (headers over the limit, sent in pieces): 431 in the envelope', async () => {
    const path = '/api/v1/person?username=someone';
    const head = `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ik_live_x\r\nIf-None-Match: "${'f'.repeat(30_000)}"\r\n\r\n`;
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        // In chunks, as a client on a real network sends them.
        for (let i = 0; i < head.length; i += 4096) socket.write(head.slice(i, i + 4096));
      });
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
    await expectEnvelope('GET', path, reply, 431, 'REQUEST_HEADERS_TOO_LARGE');
  });

  it('a request that is not HTTP (a header line without a colon): 400 VALIDATION_ERROR in the envelope', async () => {
    const { reply } = await exchange('GET /api/v1/account HTTP/1.1\r\nHost: localhost\r\nthis is not a header\r\n\r\n');
    await expectEnvelope('GET', '/api/v1/account', reply, 400, 'VALIDATION_ERROR');
  });


  it('closes a connection whose body trickles in beyond the request timeout', async () => {
    const { closedAfterMs } = await exchange(
      'POST /api/v1/people/search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":',
    );
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000 + MARGIN_MS);
  });

  it('closes connections beyond the cap at once, and serves again when they are gone', async () => {
    const keepAlive = 'GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n';
    const open: net.Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write(keepAlive);
      });
      open.push(socket);
    }
    const extra = await exchange(keepAlive);
    expect(extra.reply).toBe('');
    expect(extra.closedAfterMs).toBeLessThan(MARGIN_MS);
    for (const s of open) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const res = await fetch(`${server.url}/api/v1/health`);
    expect(res.status).toBe(200);
  });
});
