/**
 * The operator commands (workspaces, keys, licenses), run in-process against the run's database
 * (DATABASE_URL), and their effect checked over HTTP on a server sharing that database. The process
 * itself (bin, exit codes, startup) is tested in process.test.ts.
 */
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';

const h = useHarness();
/** Operator changes reach running servers through NOTIFY: wait until the server has applied them. */
const settle = () => h.authChangesApplied();

describe('enrich CLI', () => {
  it('migrate reports an up-to-date schema', async () => {
    expect(await enrichJson('migrate')).toEqual({ applied: [] });
  });

  it('workspace create --json prints the workspace id and a working owner key', async () => {
    const created = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Acme', '--rate-limit', '42');
    expect(Object.keys(created).sort()).toEqual(['api_key', 'workspace_id']);
    expect(created.api_key).toMatch(/^ik_live_[A-Za-z0-9]{32}$/);
    const res = await h.get('/api/v1/account', created.api_key);
    expect(res.status).toBe(200);
    expect(res.body.data.workspace).toEqual({ id: created.workspace_id, name: 'Acme' });
    expect(res.body.quotas.rate_limit.workspace.limit).toBe(42);
  });

  it('--inactive creates a workspace whose key gets 402, until the license is set active', async () => {
    const created = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Dormant', '--inactive');
    // GET /account answers 200 whatever the license (it shows why); a licensed operation answers 402.
    const licensed = '/api/v1/person/check?username=dormant-check';
    expect((await h.get(licensed, created.api_key)).status).toBe(402);
    expect((await h.get('/api/v1/account', created.api_key)).body.data.license.status).toBe('inactive');
    const set = await enrichJson<{ status: string }>('license', 'set', '--workspace', created.workspace_id, '--status', 'active');
    expect(set.status).toBe('active');
    await settle();
    expect((await h.get(licensed, created.api_key)).status).toBe(200);
    await enrichJson('license', 'set', '--workspace', created.workspace_id, '--status', 'inactive');
    await settle();
    const res = await h.get(licensed, created.api_key);
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('LICENSE_INACTIVE');
  });

  it('key create --member --allowance gives a member key with its own window', async () => {
    const ws = await enrichJson<{ workspace_id: string }>('workspace', 'create', '--name', 'Team', '--rate-limit', '100');
    const member = await enrichJson<{ account_id: string; api_key: string }>(
      'key', 'create', '--workspace', ws.workspace_id, '--member', 'sam', '--allowance', '7',
    );
    expect(Object.keys(member).sort()).toEqual(['account_id', 'api_key']);
    const res = await h.get('/api/v1/account', member.api_key);
    expect(res.body.data.account).toEqual({ id: member.account_id, name: 'sam', role: 'member' });
    expect(res.body.quotas.rate_limit.member).toMatchObject({ limit: 7, remaining: 6 });
    // The same member gets a second key on the same account.
    const again = await enrichJson<{ account_id: string }>('key', 'create', '--workspace', ws.workspace_id, '--member', 'sam');
    expect(again.account_id).toBe(member.account_id);
  });

  it('key revoke by display prefix stops the key at once on a running server', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Revokers');
    expect((await h.get('/api/v1/account', ws.api_key)).status).toBe(200); // now cached by the server
    const revoked = await enrichJson<{ revoked: number; keys: { key_id: string; prefix: string }[] }>('key', 'revoke', ws.api_key.slice(0, 14));
    expect(revoked).toEqual({ revoked: 1, keys: [{ key_id: expect.any(String), prefix: ws.api_key.slice(0, 14) }] });
    await settle();
    const res = await h.get('/api/v1/account', ws.api_key);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('API_KEY_INVALID');
  });

  it('key revoke accepts the full key, a shorter or longer prefix, the key id, or the account id', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Handles');
    const make = () => enrichJson<{ account_id: string; api_key: string }>('key', 'create', '--workspace', ws.workspace_id);
    const [full, shorter, longer, byAccount] = [await make(), await make(), await make(),
      await enrichJson<{ account_id: string; api_key: string }>('key', 'create', '--workspace', ws.workspace_id, '--member', 'temp')];
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', full.api_key)).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', shorter.api_key.slice(0, 12))).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', longer.api_key.slice(0, 20))).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', byAccount.account_id)).revoked).toBe(1);
    await settle();
    for (const k of [full, shorter, longer, byAccount]) expect((await h.get('/api/v1/account', k.api_key)).status).toBe(401);
    // The owner's first key is untouched, and `key list` shows what happened without showing keys.
    expect((await h.get('/api/v1/account', ws.api_key)).status).toBe(200);
    const listed = await enrichJson<{ keys: { key_id: string; prefix: string; revoked_at: string | null }[] }>('key', 'list', '--workspace', ws.workspace_id);
    expect(listed.keys).toHaveLength(5);
    expect(listed.keys.filter((k) => k.revoked_at === null)).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(ws.api_key.slice(14));
    const byKeyId = listed.keys.find((k) => k.revoked_at === null)!.key_id;
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', byKeyId)).revoked).toBe(1);
  });

  it('fails with a message and exit code 1 on bad input', async () => {
    const unknown = await enrich('key', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--json');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no workspace/);
    const badStatus = await enrich('license', 'set', '--workspace', 'x', '--status', 'paused');
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toMatch(/paused/);
    const badLimit = await enrich('workspace', 'create', '--name', 'x', '--rate-limit', '0');
    expect(badLimit.code).toBe(1);
    const noKey = await enrich('key', 'revoke', 'ik_live_nothere');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no active API key/);
    const tooShort = await enrich('key', 'revoke', 'ik_live_');
    expect(tooShort.code).toBe(1);
  });
});
