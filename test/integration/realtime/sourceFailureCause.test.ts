/**
 * Issue 32, row 9: a live source that refuses the connection or answers 5xx at once is a `failed`
 * cause, not a deadline: in the answer's cause and reason (the log's fields), the metric's label,
 * and only a source that really outlasts the deadline is `deadline`. Real sources on loopback: a
 * closed port, an HTTP server answering 500, one that never answers; the real http adapter and
 * policy, reporting into the real Metrics registry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../../src/db/embedded';
import { HttpLiveSource } from '../../../src/domain/live/httpSource';
import { ResilientSource } from '../../../src/domain/live/resilience';
import { recordValidator } from '../../../src/http/recordSchemas';
import { Metrics } from '../../../src/observability/metrics';
import { TEST_POLICY } from '../../helpers/live';

const servers: http.Server[] = [];
const opened: ResilientSource[] = [];
let metrics: Metrics;

beforeEach(() => {
  metrics = new Metrics();
});
afterEach(() => metrics.close());
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function source(url: string, policy = {}) {
  const opts = { ...TEST_POLICY, ...policy };
  const s = new ResilientSource(
    new HttpLiveSource({
      url,
      connections: 4,
      timeoutMs: Math.max(opts.timeoutMs, opts.batchTimeoutMs),
      validatePerson: recordValidator('PersonResult'),
      validateCompany: recordValidator('CompanyResult'),
    }),
    opts,
    metrics.source,
  );
  opened.push(s);
  return s;
}

const errorsByCause = async () => {
  const metric = await metrics.registry.getSingleMetric('enrich_live_source_errors_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [`${v.labels.operation}:${v.labels.cause}`, v.value]));
};

describe('the cause of a failed live-source call', () => {
  it('a closed port (connection refused): failed, not a deadline, in the answer, the reason and the metric', async () => {
    const s = source(`http://127.0.0.1:${await freePort()}/v1`);
    const one = await s.person('anyone');
    expect(one).toMatchObject({ status: 'unavailable', cause: 'failed' });
    expect((one as { reason: string }).reason).toMatch(/ECONNREFUSED|unreachable/);
    expect((one as { reason: string }).reason).not.toMatch(/in time|within/);
    const batch = await s.persons(['a', 'b']);
    expect(batch).toMatchObject({ status: 'unavailable', cause: 'failed' });
    expect(await errorsByCause()).toEqual({ 'person:failed': 1, 'persons:failed': 1 });
  });

  it('a server answering 500 at once: failed, with the status in the reason', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
    });
    const s = source(url);
    const one = await s.person('anyone');
    expect(one).toMatchObject({ status: 'unavailable', cause: 'failed', reason: 'live source answered 500' });
    const batch = await s.companies(['a']);
    expect(batch).toMatchObject({ status: 'unavailable', cause: 'failed', reason: 'live source answered 500' });
    expect(await errorsByCause()).toEqual({ 'person:failed': 1, 'companies:failed': 1 });
  });

  it('a server that never answers: deadline, named with the deadline', async () => {
    const url = await serve(() => undefined);
    const s = source(url, { timeoutMs: 300, batchTimeoutMs: 300 });
    const one = await s.person('anyone');
    expect(one).toMatchObject({ status: 'unavailable', cause: 'deadline', reason: 'the live source did not answer within 300 ms' });
    expect(await errorsByCause()).toEqual({ 'person:deadline': 1 });
  });
});
