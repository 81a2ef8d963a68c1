import { signingSecrets } from '../../../src/domain/monitors/monitors';
import { loadServerKeys } from '../../../src/domain/webhooks/secrets';
import { useHarness } from '../../helpers/harness';
import { fakeResolver, monitorBody } from '../../helpers/monitors';

const h = useHarness({ resolveHost: fakeResolver });
const rotate = (id: string, key: string) => h.send(h.http.post(`/api/v1/workspace/monitors/${id}/secret/rotate`).set('Authorization', `Bearer ${key}`));

describe('POST /workspace/monitors/{id}/secret/rotate', () => {
  it('issues a new secret shown once; both sign for 24 h; a later reveal is refused; 404 across workspaces', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    const first = (await h.send(h.http.post(`/api/v1/workspace/monitors/${monitor.id}/secret`).set('Authorization', `Bearer ${mine.key}`))).body.secret;
    expect((await rotate(monitor.id, theirs.key)).status).toBe(404);

    const res = await rotate(monitor.id, mine.key);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(first);
    const until = Date.parse(res.body.previous_secret_valid_until) - Date.now();
    expect(until).toBeGreaterThan(23.9 * 3600_000);
    expect(until).toBeLessThanOrEqual(24 * 3600_000);
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: h.config.webhooks.previousSecretKeys, dataDir: h.config.dataDir });
    expect(await signingSecrets({ db: h.knex, keys }, monitor.id)).toEqual([res.body.secret, first]);
    const reveal = await h.send(h.http.post(`/api/v1/workspace/monitors/${monitor.id}/secret`).set('Authorization', `Bearer ${mine.key}`));
    expect(reveal.status).toBe(409);
    expect((await rotate('3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', mine.key)).status).toBe(404);
    expect((await rotate(monitor.id, '')).status).toBe(401);
  });
});
