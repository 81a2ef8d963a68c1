/**
 * TRUST_PROXY: the client address is the one the outermost trusted proxy saw, counted from the
 * right of X-Forwarded-For. The leftmost entries are whatever the client sent: before, a spoofed
 * first entry escaped the anonymous limit.
 */
import { createHarness, type Harness } from '../../helpers/harness';

const health = (h: Harness, forwardedFor: string) => h.send(h.http.get('/api/v1/health').set('X-Forwarded-For', forwardedFor));

describe('TRUST_PROXY', () => {
  it('with one trusted proxy, a spoofed leftmost entry does not escape the per-address limit', async () => {
    const h = await createHarness({ config: { trustProxyHops: 1, anonymousRateLimit: 3 } });
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await health(h, `198.51.100.${i}, 203.0.113.7`));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      // Another client behind the same proxy has its own window.
      expect((await health(h, '203.0.113.8')).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('with two trusted proxies, the address the outer one saw is the client', async () => {
    const h = await createHarness({ config: { trustProxyHops: 2, anonymousRateLimit: 2 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await health(h, `spoofed-${i}, 203.0.113.9, 10.0.0.2`)).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect((await health(h, 'spoofed, 203.0.113.10, 10.0.0.2')).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    const h = await createHarness({ config: { trustProxyHops: 0, anonymousRateLimit: 2 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await health(h, `203.0.113.${i}`)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await h.close();
    }
  });
});
