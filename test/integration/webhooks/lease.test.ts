/**
 * An attempt never outlives its lease (issue 20 row 9). With a lease shorter than the attempt
 * timeout, a receiver that never answers used to get copy after copy of one event (the lease
 * expired mid-attempt, the next claim sent it again, the first attempt's outcome was refused by the
 * fence) and the delivery never reached `failed`. config.ts now refuses such a setting; the worker
 * is given one here directly (as a configuration that slipped through would), against a real HTTPS
 * receiver on loopback that holds every request open.
 */
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { deliveryRow, useDeliveryRig } from '../../helpers/webhooks';

const {
  h,
  receivers: [receiver],
  startWorker,
  stopWorker,
} = useDeliveryRig({ receivers: 1 });

describe('a receiver that never answers', () => {
  it('each attempt ends within its lease: the delivery fails after the schedule, one copy per attempt', async () => {
    const { key } = await h.workspace();
    receiver.answer = () => ({ status: 204, hang: true });
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/hangs') }), key)).body.monitor;
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id as string;
    // Two retries after the first attempt: three attempts in all.
    const worker = startWorker({ config: { leaseSeconds: 2, timeoutMs: 10_000, schedule: [0.3, 0.3] } });
    try {
      await eventually(async () => (await deliveryRow(h.knex, id))?.state === 'failed', 90_000, 100);
    } finally {
      await stopWorker(worker);
    }
    const row = await deliveryRow(h.knex, id);
    expect(row.attempts).toHaveLength(3);
    for (const a of row.attempts) expect(a).toMatchObject({ status_code: null, error: expect.stringMatching(/timeout|timed out/i) });
    expect(receiver.of(id)).toHaveLength(3);
  }, 120_000);
});
