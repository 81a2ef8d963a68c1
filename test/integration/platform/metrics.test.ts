import { useHarness } from '../../helpers/harness';

const h = useHarness();

describe('GET /metrics (outside the contract)', () => {
  it('exposes request counts by operation in Prometheus text format', async () => {
    await h.get('/api/v1/health');
    await h.get('/api/v1/account');
    const res = await h.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.text).toMatch(/enrich_http_request_duration_seconds_count\{operation="getHealth",status="200"\} 1/);
    expect(res.text).toMatch(/enrich_http_request_duration_seconds_count\{operation="getAccount",status="401"\} 1/);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});
