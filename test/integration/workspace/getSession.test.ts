import { revokeKey } from '../../../src/domain/workspaces/admin';
import { useHarness } from '../../helpers/harness';
import { dashboardConfig, signInWithKey, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });
const whoAmI = (cookie?: string) => {
  const t = h.http.get('/api/v1/workspace/sessions/current');
  return h.send(cookie ? withCookie(t, cookie) : t);
};

describe('GET /workspace/sessions/current', () => {
  it('shows who is signed in; 401 without a session, with only an API key, or with a made-up cookie', async () => {
    const { workspaceId, key } = await h.workspace();
    const cookie = await signInWithLink(h, workspaceId);
    const res = await whoAmI(cookie);
    expect(res.status).toBe(200);
    expect(res.body.session).toMatchObject({ method: 'link', account: { role: 'owner' }, workspace: { id: workspaceId } });
    expect((await whoAmI()).status).toBe(401);
    expect((await h.get('/api/v1/workspace/sessions/current', key)).status).toBe(401);
    const made = await whoAmI('enrich_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(made.status).toBe(401);
    expect(made.body.code).toBe('API_KEY_INVALID');
  });

  it('ends after 12 hours without a request (the session row aged for real), and at once when its key is revoked', async () => {
    const { workspaceId, key } = await h.workspace();
    const idle = await signInWithLink(h, workspaceId);
    expect((await whoAmI(idle)).status).toBe(200);
    // Age every session of this workspace's owner by 12 h + 1 s: the idle expiry is a database rule.
    const owner = await h.knex('accounts').where({ workspace_id: workspaceId, role: 'owner' }).first('id');
    await h.knex('dashboard_sessions').where({ account_id: owner.id }).update({ last_seen_at: h.knex.raw(`now() - interval '12 hours 1 second'`) });
    expect((await whoAmI(idle)).status).toBe(401);

    const byKey = await signInWithKey(h, key);
    expect((await whoAmI(byKey)).status).toBe(200);
    // A session used 11 hours ago is still alive, and using it moves its expiry.
    await h.knex('dashboard_sessions').where({ account_id: owner.id }).update({ last_seen_at: h.knex.raw(`now() - interval '11 hours'`) });
    const alive = await whoAmI(byKey);
    expect(alive.status).toBe(200);
    expect(Date.parse(alive.body.session.idle_expires_at) - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    await revokeKey(h.knex, key);
    expect((await whoAmI(byKey)).status).toBe(401);
  });

  it("ends a member's link session when the member's keys are all revoked", async () => {
    const { workspaceId } = await h.workspace();
    const memberKey = await h.memberKey(workspaceId, 'analyst');
    const cookie = await signInWithLink(h, workspaceId, 'analyst');
    expect((await whoAmI(cookie)).body.session.account).toMatchObject({ name: 'analyst', role: 'member' });
    const member = await h.knex('accounts').where({ workspace_id: workspaceId, name: 'analyst' }).first('id');
    await revokeKey(h.knex, member.id, { workspaceId });
    expect(memberKey).toMatch(/^ik_live_/);
    expect((await whoAmI(cookie)).status).toBe(401);
  });
});
