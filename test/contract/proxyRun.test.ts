/**
 * The proxy run's machinery (test/helpers/prismProxy.ts) really fails on violations: a fake app
 * behind `prism proxy --errors` answers outside the contract, and the tee must turn that into a
 * 599 that no test accepts; a request Prism refuses but the app accepts must fail the same way; and
 * an answer inside the contract must pass through unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProxyRun, startTee } from '../helpers/prismProxy';

const envelope = {
  quotas: { rate_limit: { workspace: { limit: 500, remaining: 499, reset_at: '2026-11-21T10:15:00Z' } } },
  metadata: { request_id: 'req_0123456789abcdef0123456789abcdef', execution_ms: 1 },
};
const headers = {
  'content-type': 'application/json',
  'x-request-id': envelope.metadata.request_id,
  'ratelimit-policy': '"workspace";q=500;w=60',
  ratelimit: '"workspace";r=499;t=42',
};

let answer: { status: number; body: unknown } = { status: 200, body: {} };
const app = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(answer.status, headers);
    res.end(JSON.stringify(answer.body));
  });
});
let run: Awaited<ReturnType<typeof startProxyRun>>;
let tee: Awaited<ReturnType<typeof startTee>>;

beforeAll(async () => {
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  run = await startProxyRun();
  process.env.ENRICH_TEST_PRISM_URL = run.prismUrl;
  process.env.ENRICH_TEST_UPSTREAM_URL = run.upstreamUrl;
  tee = await startTee((app.address() as AddressInfo).port);
}, 90_000);
afterAll(async () => {
  await tee?.close();
  await run?.stop();
  await new Promise((r) => app.close(r));
});

const get = (path: string) => fetch(`${tee.url}${path}`, { headers: { Authorization: 'Bearer ik_live_3kT9qZr4mW8xYb2NcV7pLs0dHf6JgA1e' } });

describe('proxy run (prism proxy --errors between the tests and the app)', () => {
  it('passes an answer inside the contract through unchanged', async () => {
    answer = { status: 404, body: { error: 'No profile with username "x"', code: 'NOT_FOUND', ...envelope } };
    const res = await get('/api/v1/person?username=x');
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe(envelope.metadata.request_id);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual(answer.body);
  });

  it('fails a response outside the contract', async () => {
    answer = { status: 200, body: { data: { unexpected: true }, ...envelope } };
    const res = await get('/api/v1/person?username=x');
    expect(res.status).toBe(599);
    expect(((await res.json()) as { error: string }).error).toMatch(/response outside the contract/);
  });

  it('fails when the app accepts a request Prism refuses', async () => {
    answer = { status: 200, body: { ok: true, ...envelope } };
    const res = await get('/api/v1/person?id=not-a-uuid');
    expect(res.status).toBe(599);
    expect(((await res.json()) as { error: string }).error).toMatch(/Prism refused the request .* but the server answered 200/);
  });

  it("relays the app's own 501 (Prism would mock instead)", async () => {
    answer = { status: 501, body: { error: 'Not served by this release', code: 'NOT_IMPLEMENTED', ...envelope } };
    const res = await get('/api/v1/person/similar?username=x');
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual(answer.body);
  });
});
