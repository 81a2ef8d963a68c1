/**
 * GET /monitors/{id}/deliveries: the delivery log, paged newest first, with every attempt's status
 * or network error, made by the real worker against a real HTTPS receiver and a closed port.
 */
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { closedPort, useDeliveryRig } from '../../helpers/webhooks';

const { h, receiver, startWorker } = useDeliveryRig();

const create = async (key: string, url: string) => (await h.post('/api/v1/monitors', monitorBody({ webhook_url: url }), key)).body.monitor;

describe('GET /monitors/{id}/deliveries', () => {
  it('pages the log newest first; pending deliveries show when they are due', async () => {
    const { key } = await h.workspace();
    const monitor = await create(key, receiver.url('/paged'));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id);
    const created = await h.knex('monitor_deliveries').whereIn('id', ids).select('id', 'created_at');
    const expected = created.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1)).map((r) => r.id);

    const first = await h.get(`/api/v1/monitors/${monitor.id}/deliveries?per_page=2`, key);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, page: 1, per_page: 2 });
    const second = await h.get(`/api/v1/monitors/${monitor.id}/deliveries?per_page=2&page=2`, key);
    expect([...first.body.results, ...second.body.results].map((d: { id: string }) => d.id)).toEqual(expected);
    for (const d of first.body.results) {
      expect(d).toMatchObject({ event: 'monitor.test', state: 'pending', attempts: [] });
      expect(typeof d.next_attempt_at).toBe('string');
    }
    const past = await h.get(`/api/v1/monitors/${monitor.id}/deliveries?page=3&per_page=2`, key);
    expect(past.body).toMatchObject({ results: [], total: 3, page: 3 });

    // The same log walked by cursor: every delivery once, in order, and no cursor after the last page.
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.get(`/api/v1/monitors/${monitor.id}/deliveries?per_page=1${cursor ? `&cursor=${cursor}` : ''}`, key);
      expect(res.status).toBe(200);
      expect(res.body.total_relation).toBe('eq');
      walked.push(...res.body.results.map((d: { id: string }) => d.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(expected);
  });

  it('refuses a cursor of another monitor or a malformed one with 400 INVALID_CURSOR', async () => {
    const { key } = await h.workspace();
    const a = await create(key, receiver.url('/a'));
    const b = await create(key, receiver.url('/b'));
    for (const m of [a, a, b]) await h.post(`/api/v1/monitors/${m.id}/test`, undefined, key);
    const page = await h.get(`/api/v1/monitors/${a.id}/deliveries?per_page=1`, key);
    const foreign = await h.get(`/api/v1/monitors/${b.id}/deliveries?cursor=${page.body.next_cursor}`, key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('INVALID_CURSOR');
    const garbled = await h.get(`/api/v1/monitors/${a.id}/deliveries?cursor=not-a-cursor`, key);
    expect(garbled.status).toBe(400);
    expect(garbled.body.code).toBe('INVALID_CURSOR');
  });

  it('records each attempt: HTTP status, connection refused, and the final failed state', async () => {
    const { key } = await h.workspace();
    receiver.answer = (req) => (req.path === '/broken' ? { status: 500 } : { status: 204 });
    const broken = await create(key, receiver.url('/broken'));
    const refused = await create(key, `https://127.0.0.1:${await closedPort()}/hook`);
    const a = (await h.post(`/api/v1/monitors/${broken.id}/test`, undefined, key)).body.delivery.id;
    const b = (await h.post(`/api/v1/monitors/${refused.id}/test`, undefined, key)).body.delivery.id;
    startWorker({ config: { schedule: [0.2, 0.2] } });

    const failedOf = (monitorId: string, id: string) =>
      eventually(async () => {
        const res = await h.get(`/api/v1/monitors/${monitorId}/deliveries`, key);
        const d = res.body.results.find((x: { id: string }) => x.id === id);
        return d?.state === 'failed' && d;
      });
    const httpFailure = await failedOf(broken.id, a);
    expect(httpFailure.attempts).toHaveLength(3);
    for (const attempt of httpFailure.attempts) expect(attempt).toMatchObject({ status_code: 500, error: 'HTTP 500' });
    expect(httpFailure.next_attempt_at).toBeNull();
    expect(receiver.of(a)).toHaveLength(3);

    const networkFailure = await failedOf(refused.id, b);
    expect(networkFailure.attempts).toHaveLength(3);
    for (const attempt of networkFailure.attempts) expect(attempt).toMatchObject({ status_code: null, error: 'connection refused' });
    const times = networkFailure.attempts.map((x: { attempted_at: string }) => Date.parse(x.attempted_at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it('is 404 for another workspace and an unknown monitor; 400 for a bad page', async () => {
    const mine = await h.workspace();
    const theirs = await h.workspace();
    const monitor = await create(mine.key, receiver.url());
    await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, mine.key);
    const foreign = await h.get(`/api/v1/monitors/${monitor.id}/deliveries`, theirs.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect(JSON.stringify(foreign.body)).not.toContain('monitor.test');
    expect((await h.get('/api/v1/monitors/3f2c1a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f/deliveries', mine.key)).status).toBe(404);
    expect((await h.get(`/api/v1/monitors/${monitor.id}/deliveries?per_page=101`, mine.key)).status).toBe(400);
  });
});
