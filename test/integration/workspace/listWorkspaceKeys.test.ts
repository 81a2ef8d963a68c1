import { useHarness } from '../../helpers/harness';
import { dashboardConfig, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ config: dashboardConfig });

describe('GET /workspace/keys', () => {
  it("lists the workspace's keys by display prefix (never the key), newest first, paged; a member sees only their own; last use written in batches", async () => {
    const { workspaceId, key } = await h.workspace();
    const other = await h.workspace();
    const member = await h.memberKey(workspaceId, 'analyst', 50);
    await h.memberKey(workspaceId, 'analyst');
    expect((await h.get('/api/v1/account', member)).status).toBe(200);
    await h.app.requestCounter.flush();

    const res = await h.get('/api/v1/workspace/keys', key);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(JSON.stringify(res.body)).not.toContain(key);
    expect(JSON.stringify(res.body)).not.toContain(member);
    const times = res.body.results.map((k: { created_at: string }) => Date.parse(k.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const used = res.body.results.find((k: { prefix: string }) => member.startsWith(k.prefix));
    expect(used).toMatchObject({ status: 'active', allowance: 50, member: { name: 'analyst', role: 'member' } });
    expect(used.last_used_at).not.toBeNull();
    expect(res.body.results.filter((k: { last_used_at: string | null }) => k.last_used_at === null).length).toBe(2);

    const page2 = await h.get('/api/v1/workspace/keys?per_page=2&page=2', key);
    expect(page2.body.results.length).toBe(1);
    expect(page2.body.total).toBe(3);

    const asMember = await h.get('/api/v1/workspace/keys', member);
    expect(asMember.body.total).toBe(2);
    expect(asMember.body.results.every((k: { member: { name: string } }) => k.member.name === 'analyst')).toBe(true);

    const theirs = await h.get('/api/v1/workspace/keys', other.key);
    expect(theirs.body.total).toBe(1);
    expect(theirs.body.results[0].member.role).toBe('owner');

    const cookie = await signInWithLink(h, workspaceId);
    expect((await h.send(withCookie(h.http.get('/api/v1/workspace/keys'), cookie))).body.total).toBe(3);
    expect((await h.get('/api/v1/workspace/keys')).status).toBe(401);
    expect((await h.get('/api/v1/workspace/keys?per_page=101', key)).status).toBe(400);
  });
});
