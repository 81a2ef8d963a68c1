import { createSignInLink } from '../../../src/domain/workspaces/sessions';
import { revokeKey } from '../../../src/domain/workspaces/admin';
import { createHarness, useHarness } from '../../helpers/harness';
import { dashboardConfig, ORIGIN, sessionCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });
const signIn = (body: object, origin: string | null = ORIGIN) => {
  const t = h.http.post('/api/v1/workspace/sessions');
  return h.send((origin ? t.set('Origin', origin) : t).send(body));
};

describe('POST /workspace/sessions', () => {
  it('signs in once with a link token: HttpOnly SameSite=Strict cookie, a second use is 401, the token is stored only as a hash', async () => {
    const { workspaceId } = await h.workspace();
    const link = await createSignInLink(h.knex, { workspaceId });
    const res = await signIn({ token: link.token });
    expect(res.status).toBe(201);
    expect(res.body.session).toMatchObject({ method: 'link', account: { role: 'owner', name: 'owner' }, workspace: { id: workspaceId } });
    const cookie = ([] as string[]).concat(res.headers['set-cookie'])[0];
    expect(cookie).toMatch(/^enrich_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    const idle = Date.parse(res.body.session.idle_expires_at) - Date.now();
    expect(idle).toBeGreaterThan(11.9 * 3600_000);
    expect(idle).toBeLessThanOrEqual(12 * 3600_000);

    const again = await signIn({ token: link.token });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('API_KEY_INVALID');
    const stored = await h.knex('dashboard_links').select('token_hash');
    expect(JSON.stringify(stored)).not.toContain(link.token);
    const sessions = await h.knex('dashboard_sessions').select('token_hash');
    expect(JSON.stringify(sessions)).not.toContain(sessionCookie(res).split('=')[1]);
  });

  it('refuses an expired link, an unknown token, a revoked or malformed key, and a sign-in from another origin', async () => {
    const { workspaceId, key } = await h.workspace();
    const expired = await createSignInLink(h.knex, { workspaceId, now: new Date(Date.now() - 16 * 60_000) });
    expect((await signIn({ token: expired.token })).status).toBe(401);
    expect((await signIn({ token: 'not-a-token' })).status).toBe(401);
    expect((await signIn({ api_key: 'ik_live_nothing' })).status).toBe(401);
    const foreign = await signIn({ api_key: key }, 'https://evil.example');
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('ORIGIN_NOT_ALLOWED');
    const byKey = await signIn({ api_key: key });
    expect(byKey.status).toBe(201);
    expect(byKey.body.session.method).toBe('api_key');
    const member = await h.memberKey(workspaceId, 'analyst');
    const asMember = await signIn({ api_key: member });
    expect(asMember.body.session.account).toMatchObject({ name: 'analyst', role: 'member' });
    await revokeKey(h.knex, member);
    expect((await signIn({ api_key: member })).status).toBe(401);
  });

  it('answers 400 for a body with both or neither field', async () => {
    expect((await signIn({})).status).toBe(400);
    expect((await signIn({ token: 'a', api_key: 'b' })).status).toBe(400);
  });

  it('sets Secure behind a trusted proxy', async () => {
    // A second app with TRUST_PROXY: the cookie must be Secure there.
    const proxied = await createHarness({ config: { ...dashboardConfig, trustProxyHops: 1 } });
    try {
      const { key } = await proxied.workspace();
      const res = await proxied.send(proxied.http.post('/api/v1/workspace/sessions').set('Origin', ORIGIN).send({ api_key: key }));
      expect(res.status).toBe(201);
      expect(([] as string[]).concat(res.headers['set-cookie'])[0]).toMatch(/; Secure$/);
    } finally {
      await proxied.close();
    }
  });
});
