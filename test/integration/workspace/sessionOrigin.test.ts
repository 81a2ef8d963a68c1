/**
 * Cross-site requests with the dashboard's session cookie, against a server with the README's
 * defaults (PUBLIC_URL unset): the app listens on 127.0.0.1 and is driven by raw HTTP from outside,
 * with the headers an attacker's page (or a page on another port of the same host) makes a browser
 * send. Only the server's own origin (the scheme and Host it was reached with) may use the session,
 * for any method: reads too, since realtime is metered (issue 32). The same attack from a real
 * browser (an `<img>` on another port) is in test/dashboard/dashboard.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertInContract } from '../../helpers/contractValidator';
import { createHarness, type Harness } from '../../helpers/harness';
import { personRecord, storePersons } from '../../helpers/lakeRecords';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { code?: string; [k: string]: unknown };
}

let h: Harness;
let server: http.Server;
let port: number;

beforeAll(async () => {
  // No publicOrigin: the default configuration (`npm start`, `enrich serve` without PUBLIC_URL).
  h = await createHarness({ resolveHost: fakeResolver });
  expect(h.config.publicOrigin).toBeUndefined();
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
});

/** One raw request to the listening app, its answer checked against the contract. */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        timeout: 20_000,
        headers: { ...(payload ? { 'Content-Type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const answer = { status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : {} };
          assertInContract(method, path, answer).then(() => resolve(answer), reject);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer`)));
    req.on('error', reject);
    req.end(payload);
  });
}

const own = () => `http://127.0.0.1:${port}`;

async function signIn(apiKey: string): Promise<string> {
  const res = await send('POST', '/api/v1/workspace/sessions', { Origin: own() }, { api_key: apiKey });
  expect(res.status).toBe(201);
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('enrich_session='));
  return cookie!.split(';')[0];
}

/** Headers of a request some other page makes the browser send, cookie included. */
const ATTACKS: [string, (cookie: string) => Record<string, string>][] = [
  ['a foreign Origin', (cookie) => ({ Cookie: cookie, Origin: 'https://evil.example' })],
  ['Origin: null (sandboxed frame)', (cookie) => ({ Cookie: cookie, Origin: 'null' })],
  ['another port of the same host', (cookie) => ({ Cookie: cookie, Origin: `http://127.0.0.1:${port + 1}` })],
  ['the same host by another name (localhost)', (cookie) => ({ Cookie: cookie, Origin: `http://localhost:${port}` })],
  ['no Origin, Sec-Fetch-Site: cross-site', (cookie) => ({ Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' })],
  ['no Origin, Sec-Fetch-Site: same-site', (cookie) => ({ Cookie: cookie, 'Sec-Fetch-Site': 'same-site' })],
  ['no Origin, a foreign Referer', (cookie) => ({ Cookie: cookie, Referer: 'https://evil.example/page' })],
  ['no Origin, no Sec-Fetch-Site, no Referer', (cookie) => ({ Cookie: cookie })],
];

describe('dashboard session: state changes only from the server\'s own origin (PUBLIC_URL unset)', () => {
  it.each(ATTACKS)('%s: key creation, secret reveal and rotation, test event and sign-out are refused (403)', async (_label, headersOf) => {
    const ws = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), ws.key)).body.monitor as { id: string };
    const cookie = await signIn(ws.key);
    const headers = headersOf(cookie);
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/workspace/keys', {}],
      ['POST', `/api/v1/workspace/monitors/${monitor.id}/secret`],
      ['POST', `/api/v1/workspace/monitors/${monitor.id}/secret/rotate`],
      ['POST', `/api/v1/monitors/${monitor.id}/test`],
      ['DELETE', '/api/v1/workspace/sessions/current'],
    ];
    for (const [method, path, body] of calls) {
      const res = await send(method, path, headers, body);
      expect({ method, path, status: res.status, code: res.body.code }).toEqual({ method, path, status: 403, code: 'ORIGIN_NOT_ALLOWED' });
    }
    // Nothing happened: the secret is still unrevealed (the owner gets it), the session still signed in.
    const reveal = await send('POST', `/api/v1/workspace/monitors/${monitor.id}/secret`, { Authorization: `Bearer ${ws.key}` });
    expect(reveal.status).toBe(200);
    expect((await send('GET', '/api/v1/workspace/sessions/current', { Cookie: cookie, Origin: own() })).status).toBe(200);
  });

  it.each(ATTACKS)('%s: reads are refused too (403), and the metered realtime call is not metered', async (_label, headersOf) => {
    const ws = await h.workspace();
    const person = personRecord({ fetched_at: new Date().toISOString() });
    await storePersons(h.knex, person);
    const cookie = await signIn(ws.key);
    const headers = headersOf(cookie);
    // The lake's copy is fresh: from the dashboard's own origin this answers 200 from the cache, metered.
    const calls = [`/api/v1/person/realtime?username=${person.username}&max_age=31536000`, '/api/v1/account', '/api/v1/workspace/sessions/current', '/api/v1/workspace/keys'];
    for (const path of calls) {
      for (const method of ['GET', 'HEAD']) {
        const res = await send(method, path, headers);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
        if (method === 'GET') expect(res.body.code).toBe('ORIGIN_NOT_ALLOWED');
      }
    }
    const usage = async () => ((await send('GET', '/api/v1/account', { Authorization: `Bearer ${ws.key}` })).body.data as { usage: { realtime_calls: number } }).usage.realtime_calls;
    expect(await usage()).toBe(0);
    // The control: the same call from the server's own origin is answered and metered.
    const fromOwn = await send('GET', calls[0]!, { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' });
    expect(fromOwn.status).toBe(200);
    expect(await usage()).toBe(1);
  });

  it('sign-in posted from another site is refused (login CSRF)', async () => {
    const ws = await h.workspace();
    for (const headers of [{ Origin: 'https://evil.example' }, { Origin: 'null' }, { 'Sec-Fetch-Site': 'cross-site' }] as Record<string, string>[]) {
      const res = await send('POST', '/api/v1/workspace/sessions', headers, { api_key: ws.key });
      expect(res.status).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('the dashboard itself (same origin, by Origin, Sec-Fetch-Site or Referer) still works', async () => {
    // Reads: as a browser sends them (no Origin on a same-origin GET): Sec-Fetch-Site on https and
    // loopback, Referer on a plain-http host (the page's Referrer-Policy is same-origin).
    const reader = await h.workspace();
    const readerCookie = await signIn(reader.key);
    for (const signal of [{ 'Sec-Fetch-Site': 'same-origin' }, { Referer: `${own()}/dashboard/` }, { Origin: own() }] as Record<string, string>[]) {
      for (const path of ['/api/v1/account', '/api/v1/workspace/sessions/current', '/api/v1/workspace/keys']) {
        expect({ path, signal, status: (await send('GET', path, { Cookie: readerCookie, ...signal })).status }).toEqual({ path, signal, status: 200 });
      }
    }

    const ws = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), ws.key)).body.monitor as { id: string };
    const cookie = await signIn(ws.key);
    const created = await send('POST', '/api/v1/workspace/keys', { Cookie: cookie, Origin: own() }, {});
    expect(created.status).toBe(201);
    const revealed = await send('POST', `/api/v1/workspace/monitors/${monitor.id}/secret`, { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' });
    expect(revealed.status).toBe(200);
    const rotated = await send('POST', `/api/v1/workspace/monitors/${monitor.id}/secret/rotate`, { Cookie: cookie, Referer: `${own()}/dashboard/` });
    expect(rotated.status).toBe(200);
    const signedOut = await send('DELETE', '/api/v1/workspace/sessions/current', { Cookie: cookie, Origin: own() });
    expect(signedOut.status).toBe(200);
  });
});
