/**
 * What each answer of a receiver does, made to happen for real against an HTTPS receiver on
 * loopback: 3xx (never followed), 410 (monitor deactivated, queued deliveries cancelled, a 2xx to a
 * test reactivates it), 429 / 503 with Retry-After (honoured, capped), deletion (queued retries
 * stop), 5 days of failures (shortened here by configuration), and a slow receiver that holds its
 * own per-destination slots only.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { DeliveryConfig } from '../../../src/config';
import { ServerKeys } from '../../../src/domain/webhooks/secrets';
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { deliveryRow, useDeliveryRig } from '../../helpers/webhooks';

const {
  h,
  receivers: [receiver, slow],
  startWorker,
  stopWorker,
} = useDeliveryRig({ receivers: 2 });

/** Each test runs its own worker (its own settings), stopped at the end of the test. */
async function withWorker<T>(config: Partial<DeliveryConfig>, fn: () => Promise<T>, logger?: pino.Logger): Promise<T> {
  const worker = startWorker({ config, logger });
  try {
    return await fn();
  } finally {
    await stopWorker(worker);
  }
}

const createMonitor = async (key: string, path: string, r = receiver) =>
  (await h.post('/api/v1/monitors', monitorBody({ webhook_url: r.url(path) }), key)).body.monitor;
const sendTest = async (key: string, monitorId: string) => (await h.post(`/api/v1/monitors/${monitorId}/test`, undefined, key)).body.delivery.id as string;
const stateOf = async (id: string) => (await deliveryRow(h.knex, id))?.state;

describe('delivery outcomes', () => {
  it('3xx is a failure and its Location is never requested', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req) => (req.path === '/moved' ? { status: 302, headers: { location: receiver.url('/target') } } : { status: 204 });
    const monitor = await createMonitor(key, '/moved');
    const id = await sendTest(key, monitor.id);
    await withWorker({ schedule: [0.2] }, () => eventually(async () => (await stateOf(id)) === 'failed'));
    const row = await deliveryRow(h.knex, id);
    expect(row.attempts).toHaveLength(2);
    for (const a of row.attempts) expect(a).toMatchObject({ status_code: 302, error: 'redirect not followed (HTTP 302)' });
    expect(receiver.of(id).map((r) => r.path)).toEqual(['/moved', '/moved']);
    expect(receiver.requests.filter((r) => r.path === '/target')).toEqual([]);
  });

  it('410 deactivates the monitor and cancels its queued deliveries; a 2xx to a test reactivates it', async () => {
    const { key } = await h.workspace();
    let gone = true;
    receiver.answer = (req) => (req.path === '/gone' && gone ? { status: 410 } : { status: 204 });
    const monitor = await createMonitor(key, '/gone');
    const first = await sendTest(key, monitor.id);
    const second = await sendTest(key, monitor.id);
    // One at a time to this destination, so the second is still queued when the first gets its 410.
    await withWorker({ perDestination: 1, schedule: [0.2, 0.2] }, async () => {
      await eventually(async () => (await stateOf(first)) === 'failed' && (await stateOf(second)) === 'cancelled');
      const res = await h.get(`/api/v1/monitors/${monitor.id}`, key);
      expect(res.body.monitor.active).toBe(false);
      expect(receiver.of(first)).toHaveLength(1);
      expect(receiver.of(second)).toEqual([]);
      expect((await deliveryRow(h.knex, first)).attempts).toMatchObject([{ status_code: 410 }]);

      gone = false;
      const probe = await sendTest(key, monitor.id);
      await eventually(async () => (await stateOf(probe)) === 'succeeded');
      expect((await h.get(`/api/v1/monitors/${monitor.id}`, key)).body.monitor.active).toBe(true);
    });
  });

  it('429 and 503 are retried after Retry-After instead of the schedule, capped by configuration', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req, nth) => {
      const seen = receiver.of(req.headers['webhook-id']!).length;
      if (req.path === '/busy' && seen === 1) return { status: 429, headers: { 'retry-after': '1' } };
      if (req.path === '/capped' && seen === 1) return { status: 503, headers: { 'retry-after': '100000' } };
      void nth;
      return { status: 204 };
    };
    const busy = await sendTest(key, (await createMonitor(key, '/busy')).id);
    const capped = await sendTest(key, (await createMonitor(key, '/capped')).id);
    // The schedule's first retry is an hour away: only Retry-After can bring these back soon.
    await withWorker({ schedule: [3600], retryAfterCapSeconds: 2 }, () =>
      eventually(async () => (await stateOf(busy)) === 'succeeded' && (await stateOf(capped)) === 'succeeded'),
    );
    for (const [id, status, waitMs] of [
      [busy, 429, 1000],
      [capped, 503, 2000],
    ] as const) {
      const attempts = (await deliveryRow(h.knex, id)).attempts;
      expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([status, 204]);
      const gap = Date.parse(attempts[1].attempted_at) - Date.parse(attempts[0].attempted_at);
      expect(gap).toBeGreaterThanOrEqual(waitMs - 50);
      expect(gap).toBeLessThan(3600 * 1000 * 0.8);
    }
  });

  it('deleting a monitor cancels its queued retries', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req) => (req.path === '/failing' ? { status: 500 } : { status: 204 });
    const monitor = await createMonitor(key, '/failing');
    const id = await sendTest(key, monitor.id);
    const control = await createMonitor(key, '/ok');
    // The first attempt fails and its retry is queued an hour away, so no worker can send it while
    // the test arranges the rest (the order is held by state, not by a short delay).
    await withWorker({ schedule: [3600, 3600] }, () =>
      eventually(async () => {
        const row = await deliveryRow(h.knex, id);
        return row?.state === 'pending' && row.attempts.length === 1;
      }),
    );
    // With no worker running, the queued retry is made due now, as if its hour had passed: had it
    // survived the DELETE, the next worker would send it before anything queued later.
    await h.knex('monitor_deliveries').where({ id }).update({ next_attempt_at: h.knex.fn.now() });
    const del = await h.send(h.http.delete(`/api/v1/monitors/${monitor.id}`).set('Authorization', `Bearer ${key}`));
    expect(del.status).toBe(200);
    expect(await deliveryRow(h.knex, id)).toBeUndefined();
    // A worker then delivers a later test to the same destination (claims go in due order), and the
    // retry never arrives.
    await withWorker({ schedule: [0.2] }, async () => {
      const later = await sendTest(key, control.id);
      await eventually(async () => receiver.of(later).length === 1);
    });
    expect(receiver.of(id)).toHaveLength(1);
  });

  it('a monitor whose deliveries all failed for the configured time (5 days by default) is deactivated, and it is logged', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req) => (req.path === '/dead' ? { status: 500 } : { status: 204 });
    const monitor = await createMonitor(key, '/dead');
    const id = await sendTest(key, monitor.id);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    await withWorker(
      { schedule: [1.5, 1.5, 1.5, 1.5], deactivateAfterSeconds: 1 },
      () => eventually(async () => (await h.get(`/api/v1/monitors/${monitor.id}`, key)).body.monitor.active === false),
      logger,
    );
    const row = await deliveryRow(h.knex, id);
    expect(row.state).toBe('cancelled');
    expect(row.attempts.length).toBeGreaterThanOrEqual(2);
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'monitor deactivated (active: false)');
    expect(logged).toMatchObject({ monitor_id: monitor.id });
  });

  it('a secret the server key cannot decrypt: nothing is sent, the attempt fails with the reason', async () => {
    const { key } = await h.workspace();
    receiver.answer = () => ({ status: 204 });
    const monitor = await createMonitor(key, '/unsigned');
    const foreignKey = new ServerKeys(Buffer.alloc(32, 3));
    await h.knex('monitors').where({ id: monitor.id }).update({ secret_ciphertext: foreignKey.encrypt('whsec_' + Buffer.alloc(32, 4).toString('base64')) });
    const id = await sendTest(key, monitor.id);
    await withWorker({ schedule: [0.2] }, () => eventually(async () => (await stateOf(id)) === 'failed'));
    const row = await deliveryRow(h.knex, id);
    for (const a of row.attempts) expect(a.error).toMatch(/^not sent: .*unknown server key/);
    expect(receiver.requests.filter((r) => r.path === '/unsigned')).toEqual([]);
  });

  it('a receiver that never answers holds only its own destination slots: others are delivered meanwhile', async () => {
    const { key } = await h.workspace();
    slow.answer = () => ({ status: 200, hang: true });
    receiver.answer = () => ({ status: 204 });
    const stuck = await createMonitor(key, '/stuck', slow);
    const stuckIds: string[] = [];
    for (let i = 0; i < 6; i++) stuckIds.push(await sendTest(key, stuck.id));
    const fine = await createMonitor(key, '/fine');
    await withWorker({ perDestination: 2, concurrency: 8, timeoutMs: 15_000 }, async () => {
      await eventually(async () => slow.requests.length === 2);
      const fast = await sendTest(key, fine.id);
      await eventually(async () => (await stateOf(fast)) === 'succeeded');
      // Still held: the slow destination got only its cap, and none of its deliveries finished.
      expect(slow.requests).toHaveLength(2);
      expect(new Set(await Promise.all(stuckIds.map(stateOf)))).toEqual(new Set(['pending']));
      await slow.close();
    });
  });
});
