import { revokeKey, setLicense } from '../../../src/domain/workspaces/admin';
import { createHarness, type Harness } from '../../helpers/harness';
import { queriesDuring as queriesOf } from '../../helpers/queries';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const queriesDuring = (fn: () => Promise<unknown>) => queriesOf(h.knex, fn);

describe('API key verification', () => {
  it('costs one query on first use and none while the key is cached', async () => {
    const { key } = await h.workspace();
    const first = await queriesDuring(() => h.get('/api/v1/health').then(() => h.send(h.http.get('/api/v1/nope').set('Authorization', `Bearer ${key}`))));
    expect(first).toHaveLength(0); // unknown paths never reach authentication
    const cold = await queriesDuring(() => h.get('/api/v1/account', key));
    expect(cold.filter((sql) => sql.includes('api_keys'))).toHaveLength(1);
    const warm = await queriesDuring(() => h.get('/api/v1/account', key));
    expect(warm.filter((sql) => sql.includes('api_keys'))).toHaveLength(0);
  });

  it('drops only what an operator change touched: other keys stay cached', async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    await h.get('/api/v1/account', a.key);
    await h.get('/api/v1/account', b.key);
    await setLicense(h.knex, { workspaceId: b.workspaceId, status: 'inactive' });
    await h.memberKey(b.workspaceId, 'newcomer', 5);
    await h.authChangesApplied();
    const warm = await queriesDuring(() => h.get('/api/v1/account', a.key));
    expect(warm.filter((sql) => sql.includes('api_keys'))).toHaveLength(0);
    // The change reached b's cached key: its license now reads inactive (GET /account answers 200 and shows it).
    expect((await h.get('/api/v1/account', b.key)).body.data.license.status).toBe('inactive');
    expect((await h.get('/api/v1/person?username=x', b.key)).status).toBe(402);
  });

  it('stores only a hash and a short display prefix of the key', async () => {
    const { key, workspaceId } = await h.workspace();
    const rows = await h.knex('api_keys as k').join('accounts as a', 'a.id', 'k.account_id').where('a.workspace_id', workspaceId).select('k.*');
    expect(rows).toHaveLength(1);
    expect(rows[0].prefix).toBe(key.slice(0, 14));
    expect(JSON.stringify(rows[0])).not.toContain(key.slice(14));
  });

  it('forgets a revoked key at once, even when it was cached', async () => {
    const { key } = await h.workspace();
    expect((await h.get('/api/v1/account', key)).status).toBe(200);
    await revokeKey(h.knex, key.slice(0, 14));
    await h.authChangesApplied();
    expect((await h.get('/api/v1/account', key)).status).toBe(401);
  });

  it('accepts the scheme case-insensitively but nothing but Bearer', async () => {
    const { key } = await h.workspace();
    expect((await h.send(h.http.get('/api/v1/account').set('Authorization', `bearer ${key}`))).status).toBe(200);
    expect((await h.send(h.http.get('/api/v1/account').set('Authorization', `Token ${key}`))).status).toBe(401);
    expect((await h.send(h.http.get('/api/v1/account').set('Authorization', `Bearer ${key} extra`))).status).toBe(401);
  });
});
