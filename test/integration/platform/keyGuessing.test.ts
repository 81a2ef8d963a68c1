/**
 * Guessing keys costs the guesser, not the service. Before: 7,076 random well-formed keys from one
 * address made 7,077 database lookups, all 401, unthrottled, and pushed valid keys out of the cache.
 */
import { randomBytes } from 'node:crypto';
import { Authenticator } from '../../../src/domain/auth/authenticator';
import { generateApiKey, hashApiKey } from '../../../src/domain/auth/apiKey';
import { revokeKey } from '../../../src/domain/workspaces/admin';
import { createHarness, testDatabaseUrl, type Harness } from '../../helpers/harness';
import { queriesDuring } from '../../helpers/queries';

const keyQueries = (sql: string[]) => sql.filter((q) => q.includes('api_keys'));
const from = (h: Harness, address: string, key: string) =>
  h.send(h.http.get('/api/v1/account').set('X-Forwarded-For', address).set('Authorization', `Bearer ${key}`));
/** A key of the right shape whose checksum is wrong (what a typo or a random guess gives). */
const badChecksum = () => {
  const key = generateApiKey().key;
  return key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
};

describe('failed authentications are limited per client address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { authFailureLimit: 5, trustProxyHops: 1 } });
  });
  afterAll(() => h.close());

  it('after the budget, 429 with Retry-After and no lookup; keys in use keep working; other addresses are not affected', async () => {
    const { key, workspaceId } = await h.workspace();
    expect((await from(h, '203.0.113.50', key)).status).toBe(200); // verified, now cached
    const fresh = await h.memberKey(workspaceId, 'fresh');
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await from(h, '203.0.113.50', generateApiKey().key)).status);
    expect(answers).toEqual([401, 401, 401, 401, 401]);

    let refused: Awaited<ReturnType<typeof from>> | undefined;
    const sql = await queriesDuring(h.knex, async () => {
      refused = await from(h, '203.0.113.50', generateApiKey().key);
    });
    expect(refused!.status).toBe(429);
    expect(refused!.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused!.body.quotas.rate_limit.workspace).toMatchObject({ limit: 5, remaining: 0 });
    expect(keyQueries(sql)).toHaveLength(0);

    // The key verified before still works from that address; a key never verified waits like a guess.
    expect((await from(h, '203.0.113.50', key)).status).toBe(200);
    expect((await from(h, '203.0.113.50', fresh)).status).toBe(429);
    // Another address is not affected.
    expect((await from(h, '203.0.113.51', fresh)).status).toBe(200);
  });
});

describe('signing in to the dashboard with an API key spends the same budget', () => {
  let h: Harness;
  beforeAll(async () => {
    // The default budget (AUTH_FAILURE_LIMIT 20).
    h = await createHarness({ config: { authFailureLimit: 20, trustProxyHops: 1 } });
  });
  afterAll(() => h.close());

  const signIn = (address: string, apiKey: string) =>
    h.send(h.http.post('/api/v1/workspace/sessions').set('X-Forwarded-For', address).send({ api_key: apiKey }));

  it('20 bad keys answer 401, then 429 with Retry-After, as on /account; the budget is the same one', async () => {
    const { key } = await h.workspace();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push((await signIn('203.0.113.70', generateApiKey().key)).status);
    expect(answers).toEqual(Array(20).fill(401));
    const refused = await signIn('203.0.113.70', generateApiKey().key);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Even a good key waits, on sign-in and on the API alike: the address used its budget up.
    expect((await signIn('203.0.113.70', key)).status).toBe(429);
    expect((await from(h, '203.0.113.70', key)).status).toBe(429);
    // Another address signs in.
    expect((await signIn('203.0.113.71', key)).status).toBe(201);
  });

  it('failures on the API count against sign-in too', async () => {
    const { key } = await h.workspace();
    for (let i = 0; i < 20; i++) expect((await from(h, '203.0.113.72', generateApiKey().key)).status).toBe(401);
    expect((await signIn('203.0.113.72', key)).status).toBe(429);
  });
});

describe('refused without a lookup', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('a key whose checksum is wrong, and any malformed key', async () => {
    const sql = await queriesDuring(h.knex, async () => {
      for (let i = 0; i < 20; i++) expect((await h.get('/api/v1/account', badChecksum())).status).toBe(401);
      expect((await h.get('/api/v1/account', `ik_live_${'x'.repeat(40)}`)).status).toBe(401);
    });
    expect(keyQueries(sql)).toHaveLength(0);
  });

  it('an unknown key with a valid checksum costs one lookup, then none (negative cache)', async () => {
    const unknown = generateApiKey().key;
    const first = await queriesDuring(h.knex, () => h.get('/api/v1/account', unknown));
    expect(keyQueries(first)).toHaveLength(1);
    const again = await queriesDuring(h.knex, async () => {
      for (let i = 0; i < 10; i++) expect((await h.get('/api/v1/account', unknown)).status).toBe(401);
    });
    expect(keyQueries(again)).toHaveLength(0);
  });
});

describe('unknown keys have a cache of their own', () => {
  it('guesses do not push verified keys out', async () => {
    const h = await createHarness();
    const auth = new Authenticator(h.knex, { ttlMs: 60_000, verifiedMax: 10, unknownMax: 3 });
    try {
      const { key } = await h.workspace();
      await auth.authenticate(`Bearer ${key}`);
      for (let i = 0; i < 50; i++) await expect(auth.authenticate(`Bearer ${generateApiKey().key}`)).rejects.toThrow();
      const sql = await queriesDuring(h.knex, () => auth.authenticate(`Bearer ${key}`));
      expect(keyQueries(sql)).toHaveLength(0);
    } finally {
      await auth.close();
      await h.close();
    }
  });
});

describe('keys issued before the checksum', () => {
  it('keep working; once none can be valid, a key of that shape is refused without a lookup', async () => {
    const setup = await createHarness();
    const { workspaceId } = await setup.workspace();
    const owner = await setup.knex('accounts').where({ workspace_id: workspaceId }).first('id');
    const legacy = `ik_live_${randomBytes(24).toString('base64').replace(/[^A-Za-z0-9]/g, '').padEnd(32, 'Q').slice(0, 32)}`;
    await setup.knex('api_keys').insert({ account_id: owner.id, prefix: legacy.slice(0, 14), key_hash: hashApiKey(legacy), checksummed: false });
    await setup.close();

    // A server started now (as after an upgrade) knows legacy keys exist.
    const h = await createHarness({ databaseUrl: testDatabaseUrl() });
    try {
      expect((await h.get('/api/v1/account', legacy)).status).toBe(200);
      await revokeKey(h.knex, legacy);
      await new Promise((r) => setTimeout(r, 500));
      expect((await h.get('/api/v1/account', legacy)).status).toBe(401);
      // Whether another legacy key may exist is known again after the revocation: if none, no lookup.
      const stillUsable = (await h.knex.raw(`select exists (select 1 from api_keys where not checksummed and revoked_at is null) as u`)).rows[0].u;
      const sql = await queriesDuring(h.knex, () => h.get('/api/v1/account', `ik_live_${'Z'.repeat(32)}`));
      expect(keyQueries(sql)).toHaveLength(stillUsable ? 1 : 0);
    } finally {
      await h.close();
    }
  });
});
