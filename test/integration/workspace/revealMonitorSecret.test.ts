import { Webhook } from 'standardwebhooks';
import { signingSecrets } from '../../../src/domain/monitors/monitors';
import { loadServerKeys } from '../../../src/domain/webhooks/secrets';
import { enrich } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';
import { dashboardConfig, signInWithLink, withCookie } from '../../helpers/workspace';

const h = useHarness({ resolveHost: fakeResolver, config: dashboardConfig });
const reveal = (id: string, key: string) => h.send(h.http.post(`/api/v1/workspace/monitors/${id}/secret`).set('Authorization', `Bearer ${key}`));

describe('POST /workspace/monitors/{id}/secret', () => {
  it('reveals the secret exactly once (the one deliveries are signed with); 409 after; 404 across workspaces', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    expect((await reveal(monitor.id, theirs.key)).status).toBe(404);

    const res = await reveal(monitor.id, mine.key);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body.previous_secret_valid_until).toBeNull();
    // The revealed secret is the one the service signs with: standardwebhooks verifies a signature made with it.
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: h.config.webhooks.previousSecretKeys, dataDir: h.config.dataDir });
    const [signing] = await signingSecrets({ db: h.knex, keys }, monitor.id);
    expect(signing).toBe(res.body.secret);
    const wh = new Webhook(res.body.secret);
    const ts = new Date();
    const sig = wh.sign('msg_1', ts, '{"a":1}');
    expect(wh.verify('{"a":1}', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)), 'webhook-signature': sig })).toEqual({ a: 1 });

    const again = await reveal(monitor.id, mine.key);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('SECRET_ALREADY_REVEALED');
    expect(JSON.stringify(again.body)).not.toContain(res.body.secret);
    expect((await reveal('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', mine.key)).status).toBe(404);
  });

  it('shares the once-only mark with `enrich monitor secret`, and needs this server\'s Origin with the session cookie', async () => {
    const mine = await h.workspace();
    const first = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    expect((await enrich('monitor', 'secret', first.id, '--json')).code).toBe(0);
    expect((await reveal(first.id, mine.key)).status).toBe(409);

    const second = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    const cookie = await signInWithLink(h, mine.workspaceId);
    const foreign = await h.send(withCookie(h.http.post(`/api/v1/workspace/monitors/${second.id}/secret`), cookie, 'https://evil.example'));
    expect(foreign.status).toBe(403);
    const ok = await h.send(withCookie(h.http.post(`/api/v1/workspace/monitors/${second.id}/secret`), cookie));
    expect(ok.status).toBe(200);
    expect(ok.body.secret).toMatch(/^whsec_/);
  });
});
