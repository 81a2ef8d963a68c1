/**
 * The key a keep-alive connection sent last is recognised without its digest (authenticator.ts
 * `cachedOnConnection`), and nothing about who the caller is, or whether the key still counts,
 * changes: a revoked key is refused on the very connection that used it, another key on the same
 * connection is verified as its own, and an entry past the cache's TTL is not answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Authenticator } from '../../../src/domain/auth/authenticator';
import { revokeKey } from '../../../src/domain/workspaces/admin';
import { createHarness, type Harness } from '../../helpers/harness';

let h: Harness;
let server: http.Server;
let base: string;
beforeAll(async () => {
  h = await createHarness();
  server = http.createServer(h.app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await h.close();
});

/** One connection: a keep-alive agent with a single socket. */
function connection() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string, key: string) =>
    new Promise<{ status: number; reused: boolean; body: { quotas?: { rate_limit: { workspace: { limit: number } } } } }>((resolve, reject) => {
      const req = http.get(`${base}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, body: text ? JSON.parse(text) : {} }));
      });
      req.on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

describe('the key a connection sent last', () => {
  it('is recognised without its digest on the next request, and refused there once revoked', async () => {
    const { key } = await h.workspace();
    const c = connection();
    try {
      expect((await c.get('/api/v1/account', key)).status).toBe(200);
      const presented = jest.spyOn(h.app.authenticator, 'presented');
      const again = await c.get('/api/v1/account', key);
      expect(again).toMatchObject({ status: 200, reused: true });
      expect(presented).not.toHaveBeenCalled();
      presented.mockRestore();
      await revokeKey(h.knex, key.slice(0, 14));
      await h.authChangesApplied();
      const refused = await c.get('/api/v1/account', key);
      expect(refused).toMatchObject({ status: 401, reused: true });
    } finally {
      c.close();
    }
  });

  it('answers only for the same key: another key on the connection is verified as its own', async () => {
    const a = await h.workspace({ rateLimit: 500 });
    const b = await h.workspace({ rateLimit: 777 });
    const c = connection();
    try {
      expect((await c.get('/api/v1/person?username=nobody-here', a.key)).body.quotas!.rate_limit.workspace.limit).toBe(500);
      // The same length as a's key, one character changed: refused, and a's key still works after.
      const wrong = `${a.key.slice(0, -1)}${a.key.endsWith('A') ? 'B' : 'A'}`;
      expect(await c.get('/api/v1/account', wrong)).toMatchObject({ status: 401, reused: true });
      const asB = await c.get('/api/v1/person?username=nobody-here', b.key);
      expect(asB.reused).toBe(true);
      expect(asB.body.quotas!.rate_limit.workspace.limit).toBe(777);
      const asA = await c.get('/api/v1/person?username=nobody-here', a.key);
      expect(asA.body.quotas!.rate_limit.workspace.limit).toBe(500);
    } finally {
      c.close();
    }
  });

  it('is not answered once the verified entry is past its TTL', async () => {
    const { key } = await h.workspace();
    const authenticator = new Authenticator(h.knex, { ttlMs: 30 });
    await authenticator.start();
    try {
      const header = `Bearer ${key}`;
      const socket = {};
      const presented = authenticator.presented(header)!;
      const principal = await authenticator.authenticate(presented);
      authenticator.rememberOnConnection(socket, header, presented, principal);
      expect(authenticator.cachedOnConnection(socket, header)).toBe(principal);
      expect(authenticator.cachedOnConnection(socket, `Bearer ${key}x`)).toBeUndefined();
      expect(authenticator.cachedOnConnection({}, header)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 100));
      expect(authenticator.cachedOnConnection(socket, header)).toBeUndefined();
    } finally {
      await authenticator.close();
    }
  });
});
