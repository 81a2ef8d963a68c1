/** Monitor tests: a resolver with a few fixed names (no DNS needed), falling back to the system one. */
import { systemResolver, type ResolveHost } from '../../src/domain/webhooks/ssrf';
import type { SharedHarness } from './harness';

export const PUBLIC_ADDRESS = '93.184.215.14';

export const FAKE_DNS: Record<string, string[]> = {
  'hooks.example.test': [PUBLIC_ADDRESS],
  'hooks6.example.test': ['2606:4700::6810:84e5'],
  'mixed.example.test': [PUBLIC_ADDRESS, '10.1.2.3'],
  'metadata.example.test': ['169.254.169.254'],
  'mapped.example.test': ['::ffff:a9fe:a9fe'],
  'cgnat.example.test': ['100.64.0.7'],
  'ula.example.test': ['fd12:3456::1'],
  'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
};

export const fakeResolver: ResolveHost = async (host) => FAKE_DNS[host] ?? systemResolver(host);

export const monitorBody = (overrides: Record<string, unknown> = {}) => ({
  type: 'person',
  subject_url: `https://www.linkedin.com/in/watched-${Math.random().toString(36).slice(2)}`,
  webhook_url: 'https://hooks.example.test/enrich',
  ...overrides,
});

/**
 * The cases of DELETE /monitors?id= (deleteMonitor) and DELETE /monitors/{id} (deleteMonitorById),
 * the same rule under two addresses: each operation's test file runs them with its own path.
 */
export function monitorDeletionCases(h: SharedHarness, path: (id: string) => string): void {
  const del = (p: string, key: string) => h.send(h.http.delete(p).set('Authorization', `Bearer ${key}`));
  it('{ok: true}, then the monitor is gone; 404 twice, for another workspace and for an unknown id; 400 when malformed', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const created = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;

    const foreign = await del(path(created.id), theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect((await h.get(`/api/v1/monitors/${created.id}`, mine.key)).status).toBe(200);

    const res = await del(path(created.id), mine.key);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect((await h.get('/api/v1/monitors', mine.key)).body.monitors).toEqual([]);
    expect(await h.knex('monitors').where('id', created.id).first()).toBeUndefined();

    const again = await del(path(created.id), mine.key);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe(foreign.body.error);
    expect((await del(path('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f'), mine.key)).status).toBe(404);
    const malformed = await del(path('42'), mine.key);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });
}
