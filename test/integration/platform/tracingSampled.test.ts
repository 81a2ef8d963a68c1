/**
 * Sampling that really skips (issue 36's cost aim): `enrich serve` as a process with
 * OTEL_TRACES_SAMPLER=parentbased_traceidratio and a ratio of 0, so every trace the service would
 * start is left out while a caller's sampled `traceparent` is still honoured, exporting to a real
 * OTLP/HTTP receiver (test/helpers/otlp.ts). An unsampled request must export nothing at all: no
 * server span and no orphan pg statement span (the instrumentations see no trace context), and its
 * access log line has no trace id; a request in a caller's sampled trace still gets its spans.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { ENRICH_BIN } from '../../helpers/cli';
import { assertInContract } from '../../helpers/contractValidator';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { eventually } from '../../helpers/live';
import { OtlpReceiver, SPAN_KIND } from '../../helpers/otlp';

const lake = useLakeWorld();
const otlp = new OtlpReceiver();
let server: ChildProcess;
let output = '';
let base = '';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-otel-sampled-'));

beforeAll(async () => {
  await otlp.start();
  const port = await freePort();
  server = spawn(process.execPath, [ENRICH_BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: lake.url,
      PORT: String(port),
      ENRICH_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      LIVE_SOURCE: '',
      REFRESH_IN_PROCESS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  await eventually(async () => {
    if (server.exitCode !== null) throw new Error(`enrich serve exited: ${output}`);
    return output.includes('"msg":"listening"');
  }, 120_000);
  base = `http://127.0.0.1:${port}`;
}, 180_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    await new Promise((resolve) => {
      server.once('exit', resolve);
      server.kill('SIGTERM');
    });
  }
  await otlp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function lookup(username: string, headers: Record<string, string> = {}) {
  const pathAndQuery = `/api/v1/person?username=${username}`;
  const res = await fetch(base + pathAndQuery, { headers: { authorization: `Bearer ${lake.key}`, ...headers } });
  const body = (await res.json()) as Record<string, unknown>;
  await assertInContract('GET', '/api/v1/person', { status: res.status, headers: Object.fromEntries(res.headers), body });
  return { status: res.status, requestId: res.headers.get('x-request-id')! };
}

const accessLine = (requestId: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'request' && l.request_id === requestId);

describe('tracing with a sampler that leaves the service own traces out', () => {
  it('an unsampled request exports no span at all; a request in a sampled caller trace still does', async () => {
    const unsampled = await lookup('nobody-unsampled-1');
    expect(unsampled.status).toBe(404);
    const unsampledLog = await eventually(async () => accessLine(unsampled.requestId), 10_000);
    expect(unsampledLog).toMatchObject({ status: 404, operation: 'getPerson' });
    expect(unsampledLog.trace_id).toBeUndefined();

    // Then one request inside a caller's sampled trace: once its spans have arrived, every export
    // the unsampled request could have caused (same process, same batch queue, sent first) is in too.
    const traceId = 'c3'.repeat(16);
    const sampled = await lookup('nobody-sampled-2', { traceparent: `00-${traceId}-${'d4'.repeat(8)}-01` });
    expect(sampled.status).toBe(404);
    const serverSpan = await eventually(async () => otlp.trace(traceId).find((s) => s.kind === SPAN_KIND.server), 30_000);
    expect(serverSpan.name).toBe('getPerson');
    await eventually(async () => otlp.trace(traceId).some((s) => s.scope.includes('pg') && s.kind === SPAN_KIND.client), 30_000);
    expect(accessLine(sampled.requestId)).toMatchObject({ trace_id: traceId });

    // Nothing but that trace was exported: no server span of the unsampled request, no pg span
    // without a parent (the instrumentations skipped its statements).
    expect(otlp.spans.filter((s) => s.traceId !== traceId)).toEqual([]);
  });
});
