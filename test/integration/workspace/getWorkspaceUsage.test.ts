import { setRateLimit } from '../../../src/domain/workspaces/admin';
import { useHarness } from '../../helpers/harness';

// No timed flush during the test: it flushes itself, so "nothing written before a flush" is deterministic.
const h = useHarness({ config: { usageFlushMs: 600_000 } });
const today = () => new Date().toISOString().slice(0, 10);

describe('GET /workspace/usage', () => {
  it('counts requests per day by status class (429 apart) from the batched counter, and realtime calls and cost as GET /account does', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 6 });
    const other = await h.workspace();
    await h.get('/api/v1/account', key); // 200
    await h.get('/api/v1/monitors/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', key); // 404
    await h.get('/api/v1/person?username=', key); // 400
    let limited = 0;
    for (let i = 0; i < 6 && limited === 0; i++) if ((await h.get('/api/v1/account', key)).status === 429) limited++;
    expect(limited).toBe(1);
    // Nothing is written per request: before a flush the table holds nothing for this workspace.
    const [{ count }] = await h.knex('workspace_request_counts').where({ workspace_id: workspaceId }).count<{ count: string }[]>();
    expect(Number(count)).toBe(0);
    await h.app.requestCounter.flush();

    const account = (await h.get('/api/v1/account', other.key)).body.data.account.id;
    const owner = await h.knex('accounts').where({ workspace_id: workspaceId, role: 'owner' }).first('id');
    const yesterday = new Date(Date.now() - 86_400_000);
    await h.knex('realtime_usage').insert([
      { workspace_id: workspaceId, account_id: owner.id, operation_id: 'enrichPersonRealtime', cost_usd: 0.001 },
      { workspace_id: workspaceId, account_id: owner.id, operation_id: 'enrichCompanyRealtime', cost_usd: 0.001 },
      { workspace_id: workspaceId, account_id: owner.id, operation_id: 'enrichPersonRealtime', cost_usd: 0.001, created_at: yesterday },
      { workspace_id: other.workspaceId, account_id: account, operation_id: 'enrichPersonRealtime', cost_usd: 0.001 },
    ]);
    // Raise the limit (an operator change, applied through NOTIFY) so the reads below are not 429.
    await setRateLimit(h.knex, workspaceId, 1000);
    await h.authChangesApplied();
    const res = await h.get('/api/v1/workspace/usage?days=7', key);
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(7);
    const last = res.body.days[6];
    expect(last.date).toBe(today());
    // The window holds 6: the 200, the 404 and the 400, then 3 more 200s, then the 429.
    const succeeded = 1 + (6 - 3);
    expect(last).toMatchObject({ status_4xx: 2, status_5xx: 0, rate_limited: 1, realtime_calls: 2, realtime_cost_usd: 0.002 });
    expect(last.status_2xx).toBe(succeeded);
    if (res.body.days[5].date === yesterday.toISOString().slice(0, 10)) expect(res.body.days[5].realtime_calls).toBe(1);
    const fromAccount = (await h.get('/api/v1/account', key)).body.data.usage;
    expect(res.body.period).toEqual(fromAccount);

    const theirs = await h.get('/api/v1/workspace/usage?days=1', other.key);
    expect(theirs.body.days[0]).toMatchObject({ realtime_calls: 1, rate_limited: 0 });
    expect((await h.get('/api/v1/workspace/usage?days=91', key)).status).toBe(400);
    expect((await h.get('/api/v1/workspace/usage')).status).toBe(401);
    expect((await h.get('/api/v1/workspace/usage', key)).body.days).toHaveLength(30);
  });
});
