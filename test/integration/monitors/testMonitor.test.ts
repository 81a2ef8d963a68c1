/**
 * POST /monitors/{id}/test: a signed monitor.test event through the real delivery path (worker,
 * SSRF-checked client, HTTPS receiver on loopback), verified with the independent standardwebhooks
 * package with the secret revealed once, and with both secrets during a rotation.
 */
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { revealSecret, rotateSecret } from '../../../src/domain/monitors/monitors';
import { testKeys, useDeliveryRig, webhookPayloadProblems } from '../../helpers/webhooks';

const { h, receiver, startWorker } = useDeliveryRig();

beforeAll(async () => {
  startWorker({ metrics: h.app.metrics });
});

describe('POST /monitors/{id}/test', () => {
  it('enqueues a monitor.test delivery that arrives signed with the monitor secret, and is logged', async () => {
    const { key } = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url() }), key)).body.monitor;
    expect(monitor).toBeDefined();
    const secret = await revealSecret({ db: h.knex, keys: testKeys() }, monitor.id);

    const res = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key);
    expect(res.status).toBe(202);
    const delivery = res.body.delivery;
    expect(delivery).toMatchObject({ event: 'monitor.test', state: 'pending', attempts: [] });

    const [received] = await eventually(async () => receiver.of(delivery.id).length > 0 && receiver.of(delivery.id));
    const payload = new Webhook(secret).verify(received!.body, received!.headers) as Record<string, unknown>;
    // The subject is not in the lake: no id, the username and URL from the monitor's subject_url.
    const username = monitor.subject_url.split('/').pop();
    expect(payload).toEqual({
      id: delivery.id, event: 'monitor.test', monitor_id: monitor.id, timestamp: expect.stringMatching(/^[0-9]+$/), diff: {},
      subject: { type: 'person', id: null, username, network_url: `https://www.linkedin.com/in/${username}/` },
    });
    expect(webhookPayloadProblems(payload)).toEqual([]);
    expect(received!.headers['webhook-id']).toBe(delivery.id);
    expect(received!.headers['webhook-signature'].split(' ')).toHaveLength(1);

    const log = await eventually(async () => {
      const page = await h.get(`/api/v1/monitors/${monitor.id}/deliveries`, key);
      const d = page.body.results?.find((x: { id: string }) => x.id === delivery.id);
      return d?.state === 'succeeded' && d;
    });
    expect(log.attempts).toHaveLength(1);
    expect(log.attempts[0]).toMatchObject({ status_code: 204, error: null });
    expect(log.next_attempt_at).toBeNull();
    const counted = await h.app.metrics.registry.getSingleMetricAsString('enrich_webhook_attempts_total');
    expect(counted).toMatch(/enrich_webhook_attempts_total\{outcome="succeeded"\} [1-9]/);
  });

  it('signs with both secrets during a rotation: each verifies on its own', async () => {
    const { key } = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url() }), key)).body.monitor;
    const deps = { db: h.knex, keys: testKeys() };
    const before = await revealSecret(deps, monitor.id);
    const after = (await rotateSecret(deps, monitor.id)).secret;
    expect(after).not.toBe(before);

    const delivery = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery;
    const [received] = await eventually(async () => receiver.of(delivery.id).length > 0 && receiver.of(delivery.id));
    expect(received!.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(after).verify(received!.body, received!.headers)).toMatchObject({ id: delivery.id });
    expect(new Webhook(before).verify(received!.body, received!.headers)).toMatchObject({ id: delivery.id });
    const stranger = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
    expect(() => new Webhook(stranger).verify(received!.body, received!.headers)).toThrow();
  });

  it('is 404 for another workspace, an unknown and a deleted monitor, and enqueues nothing then; 400 for a malformed id', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url() }), mine.key)).body.monitor;
    const foreign = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect(await h.knex('monitor_deliveries').where({ monitor_id: monitor.id })).toEqual([]);
    expect((await h.post('/api/v1/monitors/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/test', undefined, mine.key)).status).toBe(404);
    await h.send(h.http.delete(`/api/v1/monitors/${monitor.id}`).set('Authorization', `Bearer ${mine.key}`));
    expect((await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, mine.key)).status).toBe(404);
    const malformed = await h.post('/api/v1/monitors/nope/test', undefined, mine.key);
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });
});
