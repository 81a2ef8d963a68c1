import { useHarness } from '../../helpers/harness';
import { dashboardConfig, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });

describe('DELETE /workspace/sessions/current', () => {
  it('signs out: clears the cookie and the session answers 401 from then on; another origin is 403 and leaves it alive', async () => {
    const { workspaceId, key } = await h.workspace();
    const cookie = await signInWithLink(h, workspaceId);
    const foreign = await h.send(withCookie(h.http.delete('/api/v1/workspace/sessions/current'), cookie, 'https://evil.example'));
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('ORIGIN_NOT_ALLOWED');
    const noOrigin = await h.send(withCookie(h.http.delete('/api/v1/workspace/sessions/current'), cookie, null));
    expect(noOrigin.status).toBe(403);
    // Reads need the origin too (issue 32): without one the session is refused, and still alive.
    const noOriginRead = await h.send(withCookie(h.http.get('/api/v1/account'), cookie, null));
    expect([noOriginRead.status, noOriginRead.body.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    expect((await h.send(withCookie(h.http.get('/api/v1/account'), cookie))).status).toBe(200);

    const res = await h.send(withCookie(h.http.delete('/api/v1/workspace/sessions/current'), cookie));
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(([] as string[]).concat(res.headers['set-cookie'])[0]).toMatch(/^enrich_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await h.send(withCookie(h.http.get('/api/v1/account'), cookie))).status).toBe(401);
    expect((await h.send(withCookie(h.http.delete('/api/v1/workspace/sessions/current'), cookie))).status).toBe(401);
    // An API key has no session to end.
    expect((await h.send(h.http.delete('/api/v1/workspace/sessions/current').set('Authorization', `Bearer ${key}`))).status).toBe(401);
  });
});
