import { useHarness } from '../../helpers/harness';

const h = useHarness();

describe('GET /workspace/members', () => {
  it('lists the accounts with allowances and active keys, owner first; a member sees only themselves; workspaces apart', async () => {
    const { workspaceId, key } = await h.workspace();
    const other = await h.workspace();
    const zed = await h.memberKey(workspaceId, 'zed', 30);
    await h.memberKey(workspaceId, 'amy');
    await h.memberKey(workspaceId, 'amy');
    const res = await h.get('/api/v1/workspace/members', key);
    expect(res.status).toBe(200);
    expect(res.body.results.map((m: { name: string }) => m.name)).toEqual(['owner', 'amy', 'zed']);
    expect(res.body.results[1]).toMatchObject({ role: 'member', allowance: null, active_keys: 2 });
    expect(res.body.results[2]).toMatchObject({ allowance: 30, active_keys: 1 });
    expect((await h.get('/api/v1/workspace/members?per_page=1&page=3', key)).body.results[0].name).toBe('zed');

    const asMember = await h.get('/api/v1/workspace/members', zed);
    expect(asMember.body.total).toBe(1);
    expect(asMember.body.results[0].name).toBe('zed');
    const theirs = await h.get('/api/v1/workspace/members', other.key);
    expect(theirs.body.results.map((m: { name: string }) => m.name)).toEqual(['owner']);
    expect((await h.get('/api/v1/workspace/members')).status).toBe(401);
  });
});
