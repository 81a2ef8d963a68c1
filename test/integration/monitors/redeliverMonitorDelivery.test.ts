/**
 * POST /monitors/{id}/deliveries/{delivery_id}/redeliver: a failed delivery sent again with the same
 * webhook-id (one new attempt), 409 DELIVERY_NOT_FAILED otherwise, 404 across monitors and workspaces.
 */
import { Webhook } from 'standardwebhooks';
import { revealSecret } from '../../../src/domain/monitors/monitors';
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { testKeys, useDeliveryRig } from '../../helpers/webhooks';

const { h, receiver, startWorker } = useDeliveryRig();

beforeAll(async () => {
  startWorker({ config: { schedule: [0.2, 0.2] } });
});

const logged = (key: string, monitorId: string, id: string, state: string) =>
  eventually(async () => {
    const res = await h.get(`/api/v1/monitors/${monitorId}/deliveries`, key);
    const d = res.body.results.find((x: { id: string }) => x.id === id);
    return d?.state === state && d;
  });

describe('POST /monitors/{id}/deliveries/{delivery_id}/redeliver', () => {
  it('sends a failed delivery again with the same webhook-id and body, one new attempt, then 409 once it succeeded', async () => {
    const { key } = await h.workspace();
    let healthy = false;
    receiver.answer = (req) => (req.path === '/flaky' && !healthy ? { status: 503 } : { status: 200 });
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/flaky') }), key)).body.monitor;
    const secret = await revealSecret({ db: h.knex, keys: testKeys() }, monitor.id);
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id;
    const failed = await logged(key, monitor.id, id, 'failed');
    expect(failed.attempts).toHaveLength(3);

    // Still failed: a pending or succeeded one is refused, this one is accepted.
    healthy = true;
    const res = await h.post(`/api/v1/monitors/${monitor.id}/deliveries/${id}/redeliver`, undefined, key);
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ id, state: 'pending', event: 'monitor.test' });
    expect(res.body.delivery.attempts).toHaveLength(3);

    const done = await logged(key, monitor.id, id, 'succeeded');
    expect(done.attempts).toHaveLength(4);
    expect(done.attempts[3]).toMatchObject({ status_code: 200, error: null });
    const sent = receiver.of(id);
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    expect(new Webhook(secret).verify(sent[3]!.body, sent[3]!.headers)).toMatchObject({ id });

    const again = await h.post(`/api/v1/monitors/${monitor.id}/deliveries/${id}/redeliver`, undefined, key);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('DELIVERY_NOT_FAILED');
  });

  it('a redelivery that fails again is failed after its one attempt', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req) => (req.path === '/down' ? { status: 500 } : { status: 200 });
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/down') }), key)).body.monitor;
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id;
    await logged(key, monitor.id, id, 'failed');
    expect((await h.post(`/api/v1/monitors/${monitor.id}/deliveries/${id}/redeliver`, undefined, key)).status).toBe(202);
    await eventually(async () => receiver.of(id).length === 4);
    const after = await logged(key, monitor.id, id, 'failed');
    expect(after.attempts).toHaveLength(4);
  });

  it('is 409 for a pending delivery; 404 for an unknown delivery, one of another monitor, and another workspace', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    receiver.answer = () => ({ status: 200, hang: true });
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/slow') }), mine.key)).body.monitor;
    const other = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/slow') }), mine.key)).body.monitor;
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, mine.key)).body.delivery.id;
    const pending = await h.post(`/api/v1/monitors/${monitor.id}/deliveries/${id}/redeliver`, undefined, mine.key);
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe('DELIVERY_NOT_FAILED');

    const wrongMonitor = await h.post(`/api/v1/monitors/${other.id}/deliveries/${id}/redeliver`, undefined, mine.key);
    expect(wrongMonitor.status).toBe(404);
    const foreign = await h.post(`/api/v1/monitors/${monitor.id}/deliveries/${id}/redeliver`, undefined, theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    const unknown = await h.post(`/api/v1/monitors/${monitor.id}/deliveries/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/redeliver`, undefined, mine.key);
    expect(unknown.status).toBe(404);
    expect((await h.post(`/api/v1/monitors/${monitor.id}/deliveries/nope/redeliver`, undefined, mine.key)).status).toBe(400);
  });
});
