import { useHarness } from '../../helpers/harness';
import { dashboardConfig, signInWithKey, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });
const revoke = (id: string, key: string) => h.send(h.http.delete(`/api/v1/workspace/keys/${id}`).set('Authorization', `Bearer ${key}`));

describe('DELETE /workspace/keys/{key_id}', () => {
  it('revokes at once (the next request with the key is 401, its sessions end); another workspace\'s key is 404; a member only their own', async () => {
    const { workspaceId, key } = await h.workspace();
    const other = await h.workspace();
    const created = (await h.post('/api/v1/workspace/keys', {}, key)).body;
    expect((await h.get('/api/v1/account', created.api_key)).status).toBe(200); // now cached by the app
    const session = await signInWithKey(h, created.api_key);

    expect((await revoke(created.key.id, other.key)).status).toBe(404);
    expect((await h.get('/api/v1/account', created.api_key)).status).toBe(200);

    const res = await revoke(created.key.id, key);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    await h.authChangesApplied();
    expect((await h.get('/api/v1/account', created.api_key)).status).toBe(401);
    expect((await h.send(withCookie(h.http.get('/api/v1/account'), session))).status).toBe(401);
    const listed = (await h.get('/api/v1/workspace/keys', key)).body.results.find((k: { id: string }) => k.id === created.key.id);
    expect(listed.status).toBe('revoked');
    expect(listed.revoked_at).not.toBeNull();
    expect((await revoke(created.key.id, key)).status).toBe(200); // already revoked: no-op

    const memberA = await h.memberKey(workspaceId, 'a');
    const memberB = (await h.post('/api/v1/workspace/keys', { member: 'b' }, key)).body;
    expect((await revoke(memberB.key.id, memberA)).status).toBe(404);
    expect((await h.get('/api/v1/account', memberB.api_key)).status).toBe(200);
    expect((await revoke('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', key)).status).toBe(404);
    expect((await revoke('nope', key)).status).toBe(400);
  });

  it('from the dashboard session, with this server\'s Origin only', async () => {
    const { workspaceId, key } = await h.workspace();
    const created = (await h.post('/api/v1/workspace/keys', {}, key)).body;
    const cookie = await signInWithLink(h, workspaceId);
    const t = () => h.http.delete(`/api/v1/workspace/keys/${created.key.id}`);
    expect((await h.send(withCookie(t(), cookie, 'http://dashboard.test.evil.example'))).status).toBe(403);
    expect((await h.get('/api/v1/account', created.api_key)).status).toBe(200);
    expect((await h.send(withCookie(t(), cookie))).status).toBe(200);
    expect((await h.get('/api/v1/account', created.api_key)).status).toBe(401);
  });
});
