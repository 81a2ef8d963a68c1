/** `enrich monitor secret` and `enrich monitor rotate-secret`: revealed once, verifiable, rotation overlap. */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signingSecrets } from '../../../src/domain/monitors/monitors';
import { loadServerKeys } from '../../../src/domain/webhooks/secrets';
import { webhookHeaders } from '../../../src/domain/webhooks/signing';
import { enrich, enrichJson } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ workspaceRateLimit: 1000, resolveHost: fakeResolver });

describe('enrich monitor secret / rotate-secret', () => {
  it('reveals the secret once, refuses a second time; rotation reveals a new one and both sign for 24 h', async () => {
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), h.key())).body.monitor;
    const revealed = await enrichJson<{ secret: string }>('monitor', 'secret', monitor.id);
    expect(revealed.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const again = await enrich('monitor', 'secret', monitor.id);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already revealed');
    expect(again.stdout).not.toContain('whsec_');

    // The secret the server signs with is the one revealed (verified by the independent package).
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: [], dataDir: h.config.dataDir });
    const body = JSON.stringify({ id: randomUUID(), event: 'monitor.test', monitor_id: monitor.id });
    const sign = async () => webhookHeaders(await signingSecrets({ db: h.knex, keys }, monitor.id), randomUUID(), Math.floor(Date.now() / 1000), body);
    const before = await sign();
    expect(new Webhook(revealed.secret).verify(body, { ...before })).toBeTruthy();

    const rotated = await enrichJson<{ secret: string }>('monitor', 'rotate-secret', monitor.id);
    expect(rotated.secret).not.toBe(revealed.secret);
    const during = await sign();
    expect(during['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(rotated.secret).verify(body, { ...during })).toBeTruthy();
    expect(new Webhook(revealed.secret).verify(body, { ...during })).toBeTruthy();
    // The rotated secret was revealed by rotate-secret: `monitor secret` does not show it again.
    expect((await enrich('monitor', 'secret', monitor.id)).code).not.toBe(0);

    // After the 24 h overlap only the new secret signs.
    await h.knex('monitors').where('id', monitor.id).update({ previous_secret_expires_at: h.knex.raw("now() - interval '1 second'") });
    const after = await sign();
    expect(after['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(revealed.secret).verify(body, { ...after })).toThrow();
    expect(new Webhook(rotated.secret).verify(body, { ...after })).toBeTruthy();
  });

  it('a second rotation within 24 h is refused unless forced; --force replaces a leaked secret at once, the receiver switching without a failed verification', async () => {
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), h.key())).body.monitor;
    const original = (await enrichJson<{ secret: string }>('monitor', 'secret', monitor.id)).secret;
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: [], dataDir: h.config.dataDir });
    const body = JSON.stringify({ id: randomUUID(), event: 'monitor.test', monitor_id: monitor.id });
    const sign = async () => webhookHeaders(await signingSecrets({ db: h.knex, keys }, monitor.id), randomUUID(), Math.floor(Date.now() / 1000), body);
    const verifies = async (secret: string) => {
      const headers = await sign();
      try {
        return Boolean(new Webhook(secret).verify(body, { ...headers }));
      } catch {
        return false;
      }
    };

    // The freshly rotated secret leaks: an ordinary rotation is refused for 24 h, and says how to force it.
    const leaked = (await enrichJson<{ secret: string }>('monitor', 'rotate-secret', monitor.id)).secret;
    const refused = await enrich('monitor', 'rotate-secret', monitor.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('rotated less than 24 h ago');
    expect(refused.stderr).toContain('--force');
    expect(refused.stdout).not.toContain('whsec_');

    const forced = await enrichJson<{ secret: string; dropped_until: string | null; previous_signs_for_seconds: number }>('monitor', 'rotate-secret', monitor.id, '--force');
    expect(forced.secret).toMatch(/^whsec_/);
    expect(forced.secret).not.toBe(leaked);
    // The secret the first rotation replaced had about 24 h left; it stops signing now.
    expect(Date.parse(forced.dropped_until!)).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    expect((await sign())['webhook-signature'].split(' ')).toHaveLength(2);
    expect(await verifies(forced.secret)).toBe(true);
    expect(await verifies(leaked)).toBe(true); // still signs 24 h, so the receiver can switch over
    expect(await verifies(original)).toBe(false);

    // The dashboard's (API's) rotation is still limited to one a day, the forced one included.
    const cookieless = await h.post(`/api/v1/workspace/monitors/${monitor.id}/secret/rotate`, undefined, h.key());
    expect([cookieless.status, cookieless.body.code]).toEqual([409, 'SECRET_ROTATION_IN_PROGRESS']);
    // Human output of a forced rotation with nothing to drop says nothing about dropping.
    const other = (await h.post('/api/v1/monitors', monitorBody(), h.key())).body.monitor;
    const plain = await enrich('monitor', 'rotate-secret', other.id, '--force');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('New webhook secret');
    expect(plain.stdout).not.toContain('Forced');
  });

  it('an unknown monitor and a malformed id are refused', async () => {
    const unknown = await enrich('monitor', 'secret', randomUUID());
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No monitor');
    const malformed = await enrich('monitor', 'rotate-secret', 'nope');
    expect(malformed.code).not.toBe(0);
  });
});
