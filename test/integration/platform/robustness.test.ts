/** Odd inputs a client or scanner may send: always a documented JSON answer, never a 5xx. */
import { useHarness } from '../../helpers/harness';

const h = useHarness({ workspaceRateLimit: 100_000 });

const auth = () => `Bearer ${h.key()}`;

describe('odd requests', () => {
  it.each([
    '/api/v1/person?username=%E0%A4%A',
    '/api/v1/person?username=%00',
    '/api/v1/person?username=' + encodeURIComponent('名前-😀'),
    '/api/v1/person?username=a&username=b',
    '/api/v1/person?id=' + 'f'.repeat(5000),
    '/api/v1/person?unknown_param=1',
    '/api/v1/person?page=-1',
    '/api/v1/company/current-employees?company_id=1&per_page=1e3',
    '/api/v1/company/current-employees?company_id=1&per_page=',
    '/api/v1/%E0%A4%A',
    '/api/v1/person/',
    '/api/v1//person',
    '/api/v1/monitors/not-a-uuid',
    '/api/v1/monitors/' + encodeURIComponent('../../etc/passwd'),
  ])('GET %s answers inside the contract with a 4xx or 501', async (path) => {
    const res = await h.send(h.http.get(path).set('Authorization', auth()));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect([400, 404, 405, 501]).toContain(res.status);
  });

  it.each([
    ['[]', 'application/json'],
    ['null', 'application/json'],
    ['{"title": "\\ud800"}', 'application/json'],
    ['{"per_page": 1e309}', 'application/json'],
    [JSON.stringify({ location: Array.from({ length: 500 }, () => 'US') }), 'application/json'],
    ['{"title":"cto"}', 'application/json; charset=latin1'],
    ['{"title":"cto"}', 'application/x-www-form-urlencoded'],
    ['\u0000\u0001', 'application/json'],
  ])('POST body %j (%s) answers inside the contract', async (body, type) => {
    const res = await h.send(h.http.post('/api/v1/people/search').set('Authorization', auth()).set('Content-Type', type).send(body));
    // 501: the body was acceptable and reached the (not yet implemented) search.
    expect(res.status < 500 || res.status === 501).toBe(true);
  });

  it('OPTIONS on contract paths is 405 with a JSON body (HEAD: httpHardening.test.ts)', async () => {
    const res = await h.send(h.http.options('/api/v1/person').set('Authorization', auth()));
    expect(res.status).toBe(405);
  });
});
