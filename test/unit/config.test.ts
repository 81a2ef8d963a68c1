import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: undefined, redisUrl: undefined, defaultWorkspaceRateLimit: 500 });
  });
  it('rejects malformed values with a message naming the setting', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ REDIS_URL: 'not a url' })).toThrow(/REDIS_URL/);
  });
  it('reads TRUST_PROXY as a number of proxy hops', () => {
    expect(loadConfig({}).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxyHops).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxyHops).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxyHops).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxyHops).toBe(0);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
  });
  it('has bounded timeouts by default and refuses inconsistent ones', () => {
    expect(loadConfig({})).toMatchObject({ dbStatementTimeoutMs: 5000, dbAcquireTimeoutMs: 2000, redisCommandTimeoutMs: 150, httpRequestTimeoutMs: 30000 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
  });
  it('refuses a webhook lease that can expire during an attempt (issue 20), naming both settings', () => {
    for (const lease of ['10', '15']) {
      expect(() => loadConfig({ WEBHOOK_LEASE_SECONDS: lease })).toThrow(ConfigError);
      expect(() => loadConfig({ WEBHOOK_LEASE_SECONDS: lease })).toThrow(/WEBHOOK_LEASE_SECONDS.*WEBHOOK_TIMEOUT_MS/);
    }
    expect(() => loadConfig({ WEBHOOK_LEASE_SECONDS: '2', WEBHOOK_TIMEOUT_MS: '2000' })).toThrow(/WEBHOOK_LEASE_SECONDS/);
    expect(loadConfig({ WEBHOOK_LEASE_SECONDS: '16' }).webhooks.delivery.leaseSeconds).toBe(16);
    expect(loadConfig({ WEBHOOK_LEASE_SECONDS: '2', WEBHOOK_TIMEOUT_MS: '1500' }).webhooks.delivery.leaseSeconds).toBe(2);
    expect(loadConfig({}).webhooks.delivery).toMatchObject({ leaseSeconds: 60, timeoutMs: 15_000 });
  });
  it('reads DATABASE_READ_URL as a list of standbys of DATABASE_URL, with a lag bound', () => {
    expect(loadConfig({}).readReplicas).toEqual({ urls: [], maxLagSeconds: 5, probeMs: 1000, poolMax: 10 });
    const primary = 'postgres://u@10.0.0.1:5432/enrich';
    const c = loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://u@10.0.0.2/enrich, postgresql://u@10.0.0.3/enrich', DATABASE_READ_MAX_LAG_SECONDS: '2.5' });
    expect(c.readReplicas).toMatchObject({ urls: ['postgres://u@10.0.0.2/enrich', 'postgresql://u@10.0.0.3/enrich'], maxLagSeconds: 2.5 });
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://u@h/db,mysql://x' })).toThrow(/DATABASE_READ_URL \(entry 2\)/);
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://u@h/db', DATABASE_READ_MAX_LAG_SECONDS: '-1' })).toThrow(/DATABASE_READ_MAX_LAG_SECONDS/);
    // The embedded PostgreSQL has no standby this service knows of.
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://u@h/db' })).toThrow(/needs DATABASE_URL/);
  });
});
