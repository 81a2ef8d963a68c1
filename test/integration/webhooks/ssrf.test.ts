/**
 * SSRF at connect time, with WEBHOOKS_ALLOW_LOOPBACK off (the default): the address actually
 * dialled is checked on every attempt, so a host name that resolved to a public address when the
 * monitor was created and to loopback now (DNS rebinding) is refused before a connection is opened:
 * the receiver sees zero connections. Control: the same receiver is reached once the development
 * setting allows loopback, so the refusal is the policy's, not a broken setup.
 */
import { eventually } from '../../helpers/live';
import { monitorBody, PUBLIC_ADDRESS } from '../../helpers/monitors';
import { deliveryRow, REBIND_HOST, useDeliveryRig } from '../../helpers/webhooks';

const { h, resolver, receiver, startWorker, stopWorker } = useDeliveryRig({ allowLoopback: false });

const start = (allowLoopback: boolean) => startWorker({ allowLoopback, config: { schedule: [0.2] } });

const failedRow = (id: string) =>
  eventually(async () => {
    const row = await deliveryRow(h.knex, id);
    return row?.state === 'failed' && row;
  });

describe('SSRF at delivery (WEBHOOKS_ALLOW_LOOPBACK off)', () => {
  it('refuses a host name rebound to loopback after creation, before any connection; allowed loopback reaches the same receiver', async () => {
    const { key } = await h.workspace();
    resolver.names.set(REBIND_HOST, [PUBLIC_ADDRESS]);
    const created = await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/hook', REBIND_HOST) }), key);
    expect(created.status).toBe(201);
    // Loopback at creation is refused with the setting off.
    const direct = await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/hook', '127.0.0.1') }), key);
    expect(direct.status).toBe(400);

    resolver.names.set(REBIND_HOST, ['127.0.0.1']);
    const id = (await h.post(`/api/v1/monitors/${created.body.monitor.id}/test`, undefined, key)).body.delivery.id;
    const worker = start(false);
    const row = await failedRow(id);
    expect(row.attempts).toHaveLength(2);
    for (const a of row.attempts) {
      expect(a.status_code).toBeNull();
      expect(a.error).toMatch(/^blocked address: rebind\.test resolves to 127\.0\.0\.1 is a loopback address/);
    }
    expect(receiver.connections).toBe(0);
    expect(receiver.requests).toEqual([]);
    await stopWorker(worker);

    // Control: the development setting on, the same delivery redelivered, the receiver reached.
    const control = start(true);
    expect((await h.post(`/api/v1/monitors/${created.body.monitor.id}/deliveries/${id}/redeliver`, undefined, key)).status).toBe(202);
    await eventually(async () => (await deliveryRow(h.knex, id))?.state === 'succeeded');
    expect(receiver.connections).toBeGreaterThan(0);
    expect(receiver.of(id)).toHaveLength(1);
    await stopWorker(control);
  });

  it('refuses IP literals and mixed answers at delivery too (a monitor made while loopback was allowed)', async () => {
    const { key } = await h.workspace();
    const connectionsBefore = receiver.connections;
    resolver.names.set('mixed.rebind.test', [PUBLIC_ADDRESS, '127.0.0.1']);
    resolver.names.set('public.rebind.test', [PUBLIC_ADDRESS]);
    const urls = [
      receiver.url('/hook', '127.0.0.1'),
      receiver.url('/hook', '[::ffff:127.0.0.1]'),
      receiver.url('/hook', 'mixed.rebind.test'),
      receiver.url('/hook', '2130706433'),
    ];
    const ids: string[] = [];
    for (const url of urls) {
      const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: 'https://public.rebind.test/hook' }), key)).body.monitor;
      // As if created while WEBHOOKS_ALLOW_LOOPBACK was on: the check at creation no longer stands guard.
      await h.knex('monitors').where({ id: monitor.id }).update({ webhook_url: new URL(url).href });
      ids.push((await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id);
    }
    start(false);
    for (const id of ids) {
      const row = await failedRow(id);
      for (const a of row.attempts) expect(a.error).toMatch(/^blocked address: .*loopback/);
    }
    expect(receiver.connections).toBe(connectionsBefore);
  });
});
