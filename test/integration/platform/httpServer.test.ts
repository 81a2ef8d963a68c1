/**
 * The listening server (main.ts) bounds what a slow or greedy client can hold: headers and the
 * whole request must arrive within their timeouts, and connections beyond the cap are closed at
 * once. Before, a slow request body held its socket for Node's default of 300 s.
 * Bounds here are timeouts plus a generous margin: they say "does not hang", not "is fast".
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../../src/config';
import { startServer, type RunningServer } from '../../../src/main';
import { testDatabaseUrl } from '../../helpers/harness';

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

describe('the HTTP server', () => {
  it('closes a connection whose headers do not arrive within the headers timeout', async () => {
    const { reply, closedAfterMs } = await exchange('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n');
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1000 + MARGIN_MS);
    expect(reply === '' || reply.startsWith('HTTP/1.1 408')).toBe(true);
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
