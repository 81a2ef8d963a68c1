/**
 * The operator commands (workspaces, keys, licenses), run in-process against the run's database
 * (DATABASE_URL), and their effect checked over HTTP on a server sharing that database. The process
 * itself (bin, exit codes, startup) is tested in process.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { databaseUrl } from '../../../src/db/embedded';
import { dropDatabase, ensureDatabase } from '../../../src/db/knex';
import { migrationSource } from '../../../src/db/migrations';
import { enrich, enrichJson, enrichWith } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';

const h = useHarness();
/** Operator changes reach running servers through NOTIFY: wait until the server has applied them. */
const settle = () => h.authChangesApplied();

describe('enrich CLI', () => {
  it('migrate reports an up-to-date schema', async () => {
    expect(await enrichJson('migrate')).toEqual({ applied: [] });
  });

  it('migrate --json on a fresh database reports every migration it applied (it printed [] before)', async () => {
    const adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
    const name = `${process.env.TEST_DATABASE_NAME}_fresh_${randomBytes(3).toString('hex')}`.slice(0, 63);
    await ensureDatabase(adminUrl, name);
    try {
      const env = { DATABASE_URL: databaseUrl(adminUrl, name) };
      const first = await enrichWith(env, 'migrate', '--json');
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ applied: await migrationSource.getMigrations([]) });
      expect(JSON.parse((await enrichWith(env, 'migrate', '--json')).stdout)).toEqual({ applied: [] });
    } finally {
      await dropDatabase(adminUrl, name);
    }
  });

  it('workspace create --json prints the workspace id and a working owner key', async () => {
    const created = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Acme', '--rate-limit', '42');
    expect(Object.keys(created).sort()).toEqual(['api_key', 'workspace_id']);
    expect(created.api_key).toMatch(/^ik_live_[A-Za-z0-9]{36}$/);
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
    expect(Object.keys(member).sort()).toEqual(['account_id', 'api_key', 'expires_at', 'key_id']);
    const res = await h.get('/api/v1/account', member.api_key);
    expect(res.body.data.account).toEqual({ id: member.account_id, name: 'sam', role: 'member' });
    expect(res.body.quotas.rate_limit.member).toMatchObject({ limit: 7, remaining: 6 });
    // The same member gets a second key on the same account.
    const again = await enrichJson<{ account_id: string }>('key', 'create', '--workspace', ws.workspace_id, '--member', 'sam');
    expect(again.account_id).toBe(member.account_id);
  });

  it('key create refuses an allowance for the owner (the owner has the whole workspace window)', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Owners', '--rate-limit', '100');
    const res = await enrich('key', 'create', '--workspace', ws.workspace_id, '--allowance', '7');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/owner has the whole workspace window/);
    const account = await h.get('/api/v1/account', ws.api_key);
    expect(account.body.quotas.rate_limit.member).toBeUndefined();
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

  it('key revoke accepts the full key, the exact display prefix, the key id, or the account id', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Handles');
    const make = () => enrichJson<{ account_id: string; api_key: string; key_id: string }>('key', 'create', '--workspace', ws.workspace_id);
    const [full, byPrefix, byKeyId, byAccount] = [await make(), await make(), await make(),
      await enrichJson<{ account_id: string; api_key: string }>('key', 'create', '--workspace', ws.workspace_id, '--member', 'temp')];
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', full.api_key)).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', byPrefix.api_key.slice(0, 14), '--workspace', ws.workspace_id)).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', byKeyId.key_id)).revoked).toBe(1);
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', byAccount.account_id)).revoked).toBe(1);
    await settle();
    for (const k of [full, byPrefix, byKeyId, byAccount]) expect((await h.get('/api/v1/account', k.api_key)).status).toBe(401);
    // The owner's first key is untouched, and `key list` shows what happened without showing keys.
    expect((await h.get('/api/v1/account', ws.api_key)).status).toBe(200);
    const listed = await enrichJson<{ keys: { key_id: string; prefix: string; revoked_at: string | null; status: string }[] }>('key', 'list', '--workspace', ws.workspace_id);
    expect(listed.keys).toHaveLength(5);
    expect(listed.keys.filter((k) => k.status === 'active')).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(ws.api_key.slice(14));
  });

  it('key revoke refuses a partial prefix (it revoked a key of any workspace before) and an ambiguous one', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Partial');
    for (const partial of [ws.api_key.slice(0, 10), ws.api_key.slice(0, 12), ws.api_key.slice(0, 20), 'ik_live_']) {
      const res = await enrich('key', 'revoke', partial);
      expect({ partial, code: res.code }).toEqual({ partial, code: 1 });
      expect(res.stderr).toMatch(/display prefix/);
    }
    // Two active keys with one display prefix: the prefix names neither.
    const other = await enrichJson<{ workspace_id: string }>('workspace', 'create', '--name', 'Twin');
    const owner = await h.knex('accounts').where({ workspace_id: other.workspace_id }).first('id');
    await h.knex('api_keys').insert({ account_id: owner.id, prefix: ws.api_key.slice(0, 14), key_hash: randomBytes(32), checksummed: true });
    const ambiguous = await enrich('key', 'revoke', ws.api_key.slice(0, 14));
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/2 active keys/);
    // Scoped to a workspace, the prefix is unambiguous again.
    expect((await enrichJson<{ revoked: number }>('key', 'revoke', ws.api_key.slice(0, 14), '--workspace', ws.workspace_id)).revoked).toBe(1);
    expect((await h.get('/api/v1/account', ws.api_key)).status).toBe(401);
  });

  it('keys expire: key create --expires-at, and key roll --overlap issues a new key and expires the old one', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Rotation');
    // Far enough ahead for a busy machine to start the command and check the key once.
    const soon = new Date(Date.now() + 15_000).toISOString();
    const shortLived = await enrichJson<{ api_key: string; expires_at: string }>('key', 'create', '--workspace', ws.workspace_id, '--expires-at', soon);
    expect(shortLived.expires_at).toBe(soon);
    expect((await h.get('/api/v1/account', shortLived.api_key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, new Date(soon).getTime() - Date.now() + 500)));
    expect((await h.get('/api/v1/account', shortLived.api_key)).status).toBe(401);

    const rolled = await enrichJson<{ api_key: string; replaced: { prefix: string; expires_at: string } }>('key', 'roll', ws.api_key, '--overlap', '24h');
    expect(rolled.replaced.prefix).toBe(ws.api_key.slice(0, 14));
    expect(new Date(rolled.replaced.expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    await settle();
    expect((await h.get('/api/v1/account', rolled.api_key)).status).toBe(200);
    expect((await h.get('/api/v1/account', ws.api_key)).status).toBe(200); // within the overlap

    const again = await enrichJson<{ api_key: string }>('key', 'roll', rolled.api_key, '--overlap', '0');
    await settle();
    expect((await h.get('/api/v1/account', rolled.api_key)).status).toBe(401);
    expect((await h.get('/api/v1/account', again.api_key)).status).toBe(200);
    const listed = await enrichJson<{ keys: { status: string }[] }>('key', 'list', '--workspace', ws.workspace_id);
    expect(listed.keys.map((k) => k.status).sort()).toEqual(['active', 'active', 'expired', 'expired']);
    expect((await enrich('key', 'roll', rolled.api_key, '--overlap', '1.5h')).code).toBe(1);
  });

  it('license set: activating clears an end date already past (it stayed 402), --no-expiry removes any', async () => {
    const ws = await enrichJson<{ workspace_id: string; api_key: string }>('workspace', 'create', '--name', 'Lapsed');
    await h.knex('workspaces').where({ id: ws.workspace_id }).update({ license_expires_at: new Date(Date.now() - 60_000) });
    await enrichJson('license', 'set', '--workspace', ws.workspace_id, '--status', 'inactive');
    await settle();
    // GET /account answers 200 whatever the license; a licensed operation shows the 402.
    const licensed = '/api/v1/person/check?username=lapsed-check';
    expect((await h.get(licensed, ws.api_key)).status).toBe(402);
    const active = await enrichJson<{ status: string; expires_at: string | null }>('license', 'set', '--workspace', ws.workspace_id, '--status', 'active');
    expect(active).toMatchObject({ status: 'active', expires_at: null });
    await settle();
    expect((await h.get(licensed, ws.api_key)).status).toBe(200);
    expect((await h.get('/api/v1/account', ws.api_key)).body.data.license.status).toBe('active');

    const until = await enrichJson<{ expires_at: string }>('license', 'set', '--workspace', ws.workspace_id, '--status', 'active', '--expires-at', '2099-01-31');
    expect(until.expires_at).toBe('2099-01-31T00:00:00.000Z');
    const cleared = await enrichJson<{ expires_at: string | null }>('license', 'set', '--workspace', ws.workspace_id, '--status', 'active', '--no-expiry');
    expect(cleared.expires_at).toBeNull();
    const both = await enrich('license', 'set', '--workspace', ws.workspace_id, '--status', 'active', '--no-expiry', '--expires-at', '2099-01-01');
    expect(both.code).toBe(1);
    const past = await enrich('license', 'set', '--workspace', ws.workspace_id, '--status', 'active', '--expires-at', '2001-01-01');
    expect(past.code).toBe(1);
  });

  it.each(['0', '2027-02-30', '2027-13-01', '27-01-01', 'tomorrow', '2027-01-01T10:00:00', '2027-01-01 10:00Z', '1e12'])(
    'dates are strict ISO 8601: --expires-at %s is refused',
    async (value) => {
      const res = await enrich('license', 'set', '--workspace', '00000000-0000-4000-8000-000000000000', '--status', 'inactive', '--expires-at', value);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/ISO 8601/);
    },
  );

  it('set-rate-limit below an existing member allowance is refused, as key create refuses the converse', async () => {
    const ws = await enrichJson<{ workspace_id: string }>('workspace', 'create', '--name', 'Carved', '--rate-limit', '100');
    await enrichJson('key', 'create', '--workspace', ws.workspace_id, '--member', 'big', '--allowance', '60');
    const res = await enrich('workspace', 'set-rate-limit', '--workspace', ws.workspace_id, '--rate-limit', '50');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/allowance of 60/);
    expect((await enrichJson<{ rate_limit: number }>('workspace', 'set-rate-limit', '--workspace', ws.workspace_id, '--rate-limit', '60')).rate_limit).toBe(60);
  });

  it('names without control or bidirectional formatting characters, and at most 100 characters', async () => {
    for (const name of ['Evil\u001b[31mCorp', 'line\nbreak', 'tab\there', 'rtl\u202Eevil', 'x'.repeat(101), '   ']) {
      const res = await enrich('workspace', 'create', '--name', name);
      expect({ name, code: res.code }).toEqual({ name, code: 1 });
    }
    const ws = await enrichJson<{ workspace_id: string }>('workspace', 'create', '--name', '  Ünïcødé 名前 ok  ');
    const member = await enrich('key', 'create', '--workspace', ws.workspace_id, '--member', 'bad\u0007bell');
    expect(member.code).toBe(1);
    const account = await h.get('/api/v1/account', (await enrichJson<{ api_key: string }>('key', 'create', '--workspace', ws.workspace_id)).api_key);
    expect(account.body.data.workspace.name).toBe('Ünïcødé 名前 ok');
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
    const noKey = await enrich('key', 'revoke', 'ik_live_nother');
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no active API key/);
    const tooShort = await enrich('key', 'revoke', 'ik_live_');
    expect(tooShort.code).toBe(1);
  });
});
