import { useHarness } from '../../helpers/harness';
import { dashboardConfig, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });

describe('POST /workspace/keys', () => {
  it('creates a key shown once that works at once; the owner may create member keys with allowances, a member may not', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 200 });
    const res = await h.post('/api/v1/workspace/keys', {}, key);
    expect(res.status).toBe(201);
    expect(res.body.api_key).toMatch(/^ik_live_/);
    expect(res.body.api_key.startsWith(res.body.key.prefix)).toBe(true);
    expect(res.body.key).toMatchObject({ status: 'active', member: { role: 'owner' }, last_used_at: null });
    expect((await h.get('/api/v1/account', res.body.api_key)).status).toBe(200);
    const listed = await h.get('/api/v1/workspace/keys', key);
    expect(JSON.stringify(listed.body)).not.toContain(res.body.api_key);

    const forMember = await h.post('/api/v1/workspace/keys', { member: 'data-team', allowance: 100 }, key);
    expect(forMember.status).toBe(201);
    expect(forMember.body.key).toMatchObject({ allowance: 100, member: { name: 'data-team', role: 'member' } });
    const account = await h.get('/api/v1/account', forMember.body.api_key);
    expect(account.body.data.rate_limits.member.limit).toBe(100);

    const tooMuch = await h.post('/api/v1/workspace/keys', { member: 'data-team', allowance: 201 }, key);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('VALIDATION_ERROR');
    // The owner always has the whole workspace window: no allowance for the owner's own keys.
    expect((await h.post('/api/v1/workspace/keys', { allowance: 10 }, key)).status).toBe(400);
    expect((await h.post('/api/v1/workspace/keys', { member: 'owner', allowance: 10 }, key)).status).toBe(400);
    expect((await h.get('/api/v1/account', key)).body.data.rate_limits.member).toBeNull();
    const badName = await h.post('/api/v1/workspace/keys', { member: 'a\u202Eb' }, key);
    expect(badName.status).toBe(400);

    const asMember = await h.post('/api/v1/workspace/keys', {}, forMember.body.api_key);
    expect(asMember.status).toBe(201);
    expect(asMember.body.key.member.name).toBe('data-team');
    const escalate = await h.post('/api/v1/workspace/keys', { member: 'owner' }, forMember.body.api_key);
    expect(escalate.status).toBe(403);
    expect(escalate.body.code).toBe('OWNER_REQUIRED');
    expect((await h.post('/api/v1/workspace/keys', { allowance: 5 }, forMember.body.api_key)).status).toBe(403);
  });

  it('with the session cookie: needs this server\'s Origin (403 otherwise)', async () => {
    const { workspaceId } = await h.workspace();
    const cookie = await signInWithLink(h, workspaceId);
    const foreign = await h.send(withCookie(h.http.post('/api/v1/workspace/keys'), cookie, 'https://evil.example').send({}));
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('ORIGIN_NOT_ALLOWED');
    const missing = await h.send(withCookie(h.http.post('/api/v1/workspace/keys'), cookie, null).send({}));
    expect(missing.status).toBe(403);
    const ok = await h.send(withCookie(h.http.post('/api/v1/workspace/keys'), cookie).send({}));
    expect(ok.status).toBe(201);
    expect((await h.send(h.http.post('/api/v1/workspace/keys').send({}))).status).toBe(401);
  });
});
