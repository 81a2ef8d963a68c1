import { setLicense } from '../../../src/domain/workspaces/admin';
import { useHarness } from '../../helpers/harness';

const h = useHarness();

describe('GET /account', () => {
  it('describes the workspace, account, license, limits and this month usage', async () => {
    const { workspaceId, key } = await h.workspace({ rateLimit: 120 });
    const res = await h.get('/api/v1/account', key);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.workspace.id).toBe(workspaceId);
    expect(data.account.role).toBe('owner');
    expect(data.license).toEqual({ status: 'active', expires_at: null });
    expect(data.rate_limits).toEqual({ workspace: { limit: 120, window_seconds: 60 }, member: null });
    expect(data.usage).toMatchObject({ realtime_calls: 0, realtime_cost_usd: 0, unit_price_usd: 0.001 });
    const start = new Date(data.usage.period_start);
    expect(start.getUTCDate()).toBe(1);
    expect(new Date(data.usage.period_end).getTime()).toBeGreaterThan(Date.now());
  });

  it('sums realtime usage of the current month for the workspace only', async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const accountA = (await h.get('/api/v1/account', a.key)).body.data.account.id;
    const accountB = (await h.get('/api/v1/account', b.key)).body.data.account.id;
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) - 86_400_000);
    await h.knex('realtime_usage').insert([
      { workspace_id: a.workspaceId, account_id: accountA, operation_id: 'enrichPersonRealtime', cost_usd: 0.001 },
      { workspace_id: a.workspaceId, account_id: accountA, operation_id: 'enrichCompanyRealtime', cost_usd: 0.001 },
      { workspace_id: a.workspaceId, account_id: accountA, operation_id: 'enrichPersonRealtime', cost_usd: 0.001, created_at: lastMonth },
      { workspace_id: b.workspaceId, account_id: accountB, operation_id: 'enrichPersonRealtime', cost_usd: 0.001 },
    ]);
    const res = await h.get('/api/v1/account', a.key);
    expect(res.body.data.usage).toMatchObject({ realtime_calls: 2, realtime_cost_usd: 0.002 });
  });

  it('shows a member its own allowance next to the workspace limit', async () => {
    const { workspaceId } = await h.workspace({ rateLimit: 100 });
    const key = await h.memberKey(workspaceId, 'analyst', 10);
    const res = await h.get('/api/v1/account', key);
    expect(res.body.data.account).toMatchObject({ name: 'analyst', role: 'member' });
    expect(res.body.data.rate_limits.member).toEqual({ limit: 10, window_seconds: 60 });
    expect(res.body.quotas.rate_limit.member).toMatchObject({ limit: 10, remaining: 9 });
  });

  it('answers 200 while the license is inactive or expired, showing why everything else answers 402', async () => {
    const inactive = await h.workspace({ active: false, rateLimit: 30 });
    const res = await h.get('/api/v1/account', inactive.key);
    expect(res.status).toBe(200);
    expect(res.body.data.license).toEqual({ status: 'inactive', expires_at: null });
    // It still counts against the rate limit.
    expect(res.body.quotas.rate_limit.workspace).toMatchObject({ limit: 30, remaining: 29 });
    expect((await h.get('/api/v1/person?username=x', inactive.key)).status).toBe(402);

    const expired = await h.workspace();
    const expiresAt = new Date(Date.now() - 60_000);
    await setLicense(h.knex, { workspaceId: expired.workspaceId, status: 'active', expiresAt });
    const res2 = await h.get('/api/v1/account', expired.key);
    expect(res2.status).toBe(200);
    expect(res2.body.data.license).toEqual({ status: 'expired', expires_at: expiresAt.toISOString() });
    expect((await h.get('/api/v1/company?username=x', expired.key)).body.code).toBe('LICENSE_INACTIVE');
  });

  it('sums the ledger exactly: 1,000 rows of 0.001 USD are 1 USD, not 0.9999999', async () => {
    const { workspaceId, key } = await h.workspace();
    const accountId = (await h.get('/api/v1/account', key)).body.data.account.id;
    await h.knex('realtime_usage').insert(
      Array.from({ length: 1000 }, () => ({ workspace_id: workspaceId, account_id: accountId, operation_id: 'enrichPersonRealtime', cost_usd: '0.001' })),
    );
    const res = await h.get('/api/v1/account', key);
    expect(res.body.data.usage).toMatchObject({ realtime_calls: 1000, realtime_cost_usd: 1 });
  });
});
