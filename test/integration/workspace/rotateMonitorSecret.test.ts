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

  it('concurrent rotations: exactly one answers 200 and its secret signs; the others 409 SECRET_ROTATION_IN_PROGRESS, changing nothing', async () => {
    const mine = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), mine.key)).body.monitor;
    const first = (await h.send(h.http.post(`/api/v1/workspace/monitors/${monitor.id}/secret`).set('Authorization', `Bearer ${mine.key}`))).body.secret;
    const answers = await Promise.all(Array.from({ length: 4 }, () => rotate(monitor.id, mine.key)));
    const won = answers.filter((r) => r.status === 200);
    const lost = answers.filter((r) => r.status !== 200);
    expect(won).toHaveLength(1);
    for (const r of lost) expect([r.status, r.body.code]).toEqual([409, 'SECRET_ROTATION_IN_PROGRESS']);
    const keys = loadServerKeys({ key: h.config.webhooks.secretKey, previous: h.config.webhooks.previousSecretKeys, dataDir: h.config.dataDir });
    // Every secret handed out signs: the winner's and the one it replaced, nothing else.
    expect(await signingSecrets({ db: h.knex, keys }, monitor.id)).toEqual([won[0]!.body.secret, first]);

    // A later rotation within the 24 h is refused too; once the replaced secret stops signing, it is allowed.
    expect((await rotate(monitor.id, mine.key)).body.code).toBe('SECRET_ROTATION_IN_PROGRESS');
    await h.knex('monitors').where('id', monitor.id).update({ previous_secret_expires_at: h.knex.raw("now() - interval '1 second'") });
    const next = await rotate(monitor.id, mine.key);
    expect(next.status).toBe(200);
    expect(await signingSecrets({ db: h.knex, keys }, monitor.id)).toEqual([next.body.secret, won[0]!.body.secret]);
  });
});
