import { useHarness } from '../../helpers/harness';

const h = useHarness();
const put = (id: string, body: unknown, key: string) =>
  h.send(h.http.put(`/api/v1/workspace/members/${id}/allowance`).set('Authorization', `Bearer ${key}`).send(body as object));

describe('PUT /workspace/members/{member_id}/allowance', () => {
  it('sets and removes an allowance, effective at once; owner only; bounded by the workspace limit; 404 across workspaces', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 300 });
    const other = await h.workspace();
    const memberKey = await h.memberKey(workspaceId, 'analyst');
    expect((await h.get('/api/v1/account', memberKey)).body.data.rate_limits.member).toBeNull();
    const members = (await h.get('/api/v1/workspace/members', key)).body.results;
    const analyst = members.find((m: { name: string }) => m.name === 'analyst');
    const owner = members.find((m: { role: string }) => m.role === 'owner');

    const res = await put(analyst.id, { allowance: 120 }, key);
    expect(res.status).toBe(200);
    expect(res.body.member).toMatchObject({ id: analyst.id, allowance: 120 });
    await h.authChangesApplied();
    expect((await h.get('/api/v1/account', memberKey)).body.data.rate_limits.member.limit).toBe(120);

    expect((await put(analyst.id, { allowance: 301 }, key)).status).toBe(400);
    expect((await put(owner.id, { allowance: 10 }, key)).status).toBe(400);
    const forbidden = await put(analyst.id, { allowance: 300 }, memberKey);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('OWNER_REQUIRED');
    expect((await put(owner.id, { allowance: 300 }, memberKey)).status).toBe(404);
    expect((await put(analyst.id, { allowance: 10 }, other.key)).status).toBe(404);
    expect((await put(analyst.id, {}, key)).status).toBe(400);

    const removed = await put(analyst.id, { allowance: null }, key);
    expect(removed.body.member.allowance).toBeNull();
    await h.authChangesApplied();
    expect((await h.get('/api/v1/account', memberKey)).body.data.rate_limits.member).toBeNull();
  });
});
