/**
 * OpenTelemetry end to end, with real components: `enrich serve` as a process (the SDK must start
 * before http, pg and undici load) with the standard OTEL_* variables pointing at a real OTLP/HTTP
 * receiver (test/helpers/otlp.ts, JSON encoding), on a database of its own, with the live-source
 * simulator as a process behind a recording proxy and a real HTTPS webhook receiver. Asserts the
 * spans, their names and parent links, `traceparent` in and out, the access log line, and that no
 * identifier of a person, API key or query string is in anything exported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { createWorld, defaultAsOf } from '../../../src/world';
import { ENRICH_BIN } from '../../helpers/cli';
import { assertInContract } from '../../helpers/contractValidator';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { eventually, startGate, startSimulatorProcess, type Gate, type SimulatorProcess } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { OtlpReceiver, SPAN_KIND, type ReceivedSpan } from '../../helpers/otlp';
import { Receiver, TEST_SERVER_KEY, testCertificate } from '../../helpers/webhooks';

const WORLD = { persons: 12, companies: 3, seed: 3636, asOf: defaultAsOf() };
const world = createWorld(WORLD);
const COMMIT = 'abcdef0123456789abcdef0123456789abcdef01';

const lake = useLakeWorld();
const otlp = new OtlpReceiver();
const hooks = new Receiver();
let sim: SimulatorProcess;
let gate: Gate;
let server: ChildProcess;
let output = '';
let base = '';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-otel-'));

beforeAll(async () => {
  await otlp.start();
  await hooks.start();
  sim = await startSimulatorProcess([
    '--persons', String(WORLD.persons), '--companies', String(WORLD.companies), '--seed', String(WORLD.seed),
    '--as-of', WORLD.asOf.toISOString().slice(0, 10), '--speed', '0',
  ]);
  gate = await startGate(sim.protocolUrl);
  gate.open();
  const port = await freePort();
  server = spawn(process.execPath, [ENRICH_BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: lake.url,
      PORT: String(port),
      ENRICH_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ENRICH_COMMIT: COMMIT,
      LIVE_SOURCE: '',
      LIVE_SOURCE_URL: gate.url,
      REFRESH_IN_PROCESS: '0',
      WEBHOOK_SECRET_KEY: TEST_SERVER_KEY,
      WEBHOOK_CA_FILE: testCertificate().certFile,
      WEBHOOKS_ALLOW_LOOPBACK: '1',
      WEBHOOK_POLL_MS: '50',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: '',
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
  await gate?.close();
  await sim?.stop();
  await hooks.close();
  await otlp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: 'GET' | 'POST', pathAndQuery: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(base + pathAndQuery, {
    method,
    headers: { authorization: `Bearer ${lake.key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, any>;
  await assertInContract(method, pathAndQuery.split('?')[0]!, { status: res.status, headers: Object.fromEntries(res.headers), body: json });
  return { status: res.status, body: json, requestId: res.headers.get('x-request-id')! };
}

const logLines = () =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const statusOf = (s: ReceivedSpan) => s.attributes['http.response.status_code'] ?? s.attributes['http.status_code'];

/** Every ancestor of a span up to its trace's root, as received. */
function ancestors(span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let parent = otlp.spans.find((s) => s.spanId === span.parentSpanId);
  while (parent) {
    chain.push(parent);
    parent = otlp.spans.find((s) => s.spanId === parent!.parentSpanId);
  }
  return chain;
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('names the version everywhere: /health, /health/ready, the startup line, enrich_build_info', async () => {
    const health = await call('GET', '/api/v1/health');
    expect(health.body).toMatchObject({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/), commit: COMMIT });
    const ready = await call('GET', '/api/v1/health/ready');
    expect(ready.body).toMatchObject({ version: health.body.version, commit: COMMIT });
    const listening = logLines().find((l) => l.msg === 'listening')!;
    expect(listening).toMatchObject({ version: health.body.version, commit: COMMIT, tracing: `http/json to ${otlp.url}/v1/traces` });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain(`enrich_build_info{version="${health.body.version}",commit="${COMMIT}"} 1`);
  });

  it('a lookup: server span named by operationId, child of the incoming traceparent, its queries as children, one access log line', async () => {
    const traceId = 'a1'.repeat(16);
    const callerSpan = 'b2'.repeat(8);
    const secret = 'jane-secretperson-4711';
    const res = await call('GET', `/api/v1/person?username=${secret}`, { traceparent: `00-${traceId}-${callerSpan}-01` });
    expect(res.status).toBe(404);

    const serverSpan = await eventually(async () => otlp.trace(traceId).find((s) => s.kind === SPAN_KIND.server), 30_000);
    expect(serverSpan.name).toBe('getPerson');
    expect(serverSpan.parentSpanId).toBe(callerSpan);
    expect(serverSpan.attributes).toMatchObject({ 'enrich.workspace_id': expect.any(String), 'enrich.request_id': res.requestId, 'http.route': '/api/v1/person' });
    expect(statusOf(serverSpan)).toBe(404);
    // The statements of the request, as children of its server span, without their values.
    const queries = await eventually(async () => {
      const q = otlp.trace(traceId).filter((s) => s.scope.includes('pg') && s.kind === SPAN_KIND.client);
      return q.length ? q : undefined;
    }, 30_000);
    for (const q of queries) expect(ancestors(q)).toContainEqual(serverSpan);
    expect(queries.some((q) => String(q.attributes['db.statement'] ?? q.attributes['db.query.text']).length > 0)).toBe(true);

    const access = await eventually(async () => logLines().find((l) => l.msg === 'request' && l.request_id === res.requestId), 10_000);
    expect(access).toMatchObject({ level: 30, method: 'GET', operation: 'getPerson', route: '/api/v1/person', status: 404, trace_id: traceId, workspace_id: serverSpan.attributes['enrich.workspace_id'] });
    expect(typeof access.duration_ms).toBe('number');
    expect(JSON.stringify(access)).not.toContain(secret);
    expect(JSON.stringify(access)).not.toContain(lake.key);
  });

  it('a realtime call: the live-source call is a client span under the request, and the source gets its traceparent', async () => {
    const username = world.person(3).username;
    const arrivedBefore = gate.headers.length;
    const res = await call('GET', `/api/v1/person/realtime?username=${encodeURIComponent(username)}&max_age=0`);
    expect(res.status).toBe(200);
    expect(res.body.source).toBe('live');

    const serverSpan = await eventually(async () => otlp.spans.find((s) => s.name === 'enrichPersonRealtime' && s.attributes['enrich.request_id'] === res.requestId), 30_000);
    const sourceCall = await eventually(
      async () => otlp.trace(serverSpan.traceId).find((s) => s.kind === SPAN_KIND.client && s.scope.includes('undici')),
      30_000,
    );
    expect(ancestors(sourceCall)).toContainEqual(serverSpan);
    expect(String(sourceCall.attributes['url.full'])).toMatch(new RegExp(`^${gate.url.replace(/[.]/g, '\\.')}/[a-z/]+$`));
    // What reached the source: a traceparent naming this trace and the client span as its parent.
    const sent = gate.headers.slice(arrivedBefore).map((h) => h.traceparent);
    expect(sent).toContain(`00-${serverSpan.traceId}-${sourceCall.spanId}-01`);
  });

  it('a webhook delivery: a trace of its own per attempt, and the receiver gets its traceparent', async () => {
    const created = await call('POST', '/api/v1/monitors', {}, monitorBody({ webhook_url: hooks.url('/otel', '127.0.0.1') }));
    expect(created.status).toBe(201);
    const tested = await call('POST', `/api/v1/monitors/${created.body.monitor.id}/test`);
    const deliveryId = tested.body.delivery.id as string;
    const received = await eventually(async () => hooks.requests.find((r) => r.path === '/otel'), 60_000);
    const attempt = await eventually(async () => otlp.spans.find((s) => s.name === 'webhook.delivery' && s.attributes['enrich.delivery.id'] === deliveryId), 30_000);
    expect(attempt.parentSpanId).toBe('');
    expect(attempt.attributes).toMatchObject({ 'enrich.monitor.id': created.body.monitor.id, 'enrich.delivery.attempt': 1, 'enrich.delivery.outcome': 'succeeded' });
    const post = await eventually(async () => otlp.trace(attempt.traceId).find((s) => s.kind === SPAN_KIND.client && s.scope.includes('undici')), 30_000);
    expect(post.parentSpanId).toBe(attempt.spanId);
    expect(received.headers.traceparent).toBe(`00-${attempt.traceId}-${post.spanId}-01`);
  });

  it('a refresh round (`enrich worker --once`): a trace of its own, with its queries and the live-source call, traceparent sent', async () => {
    // The realtime call above put a record in the lake; with no minimum age it is due at once.
    const arrivedBefore = gate.headers.length;
    const worker = spawn(process.execPath, [ENRICH_BIN, 'worker', '--once', '--json'], {
      env: {
        ...process.env,
        DATABASE_URL: lake.url,
        ENRICH_DATA_DIR: dataDir,
        LIVE_SOURCE: '',
        LIVE_SOURCE_URL: gate.url,
        REFRESH_MIN_AGE_SECONDS: '0',
        REFRESH_WATCHED_MIN_AGE_SECONDS: '0',
        WEBHOOK_SECRET_KEY: TEST_SERVER_KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout!.on('data', (d) => (out += d));
    worker.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => worker.once('exit', resolve));
    expect({ code, out }).toMatchObject({ code: 0 });
    const report = JSON.parse(out.split('\n').find((l) => l.startsWith('{') && l.includes('"changed"'))!) as { changed: number; unchanged: number };
    expect(report.changed + report.unchanged).toBeGreaterThanOrEqual(1);

    // The worker flushed its spans before exiting.
    const round = otlp.spans.find((s) => s.name === 'refresh.round');
    expect(round).toBeDefined();
    expect(round!.parentSpanId).toBe('');
    const inRound = otlp.trace(round!.traceId);
    const sourceCall = inRound.find((s) => s.kind === SPAN_KIND.client && s.scope.includes('undici'));
    expect(sourceCall).toBeDefined();
    expect(inRound.some((s) => s.scope.includes('pg'))).toBe(true);
    expect(gate.headers.slice(arrivedBefore).map((h) => h.traceparent)).toContain(`00-${round!.traceId}-${sourceCall!.spanId}-01`);
  }, 120_000);

  it('exports no identifier of a person, key, cookie or query string', async () => {
    // Everything the requests above sent that names a person, whatever span it could have reached.
    await eventually(async () => otlp.spans.some((s) => s.name === 'webhook.delivery'), 30_000);
    const everything = otlp.rawBodies.join('\n');
    expect(otlp.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    for (const needle of ['jane-secretperson-4711', world.person(3).username, lake.key, 'username=', 'max_age=']) {
      expect(everything).not.toContain(needle);
    }
    for (const span of otlp.spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        if (typeof value === 'string' && /^(url|http)\./.test(key)) expect(value).not.toContain('?');
      }
      // No span is named after a URL.
      expect(span.name).not.toMatch(/\/|\?/);
    }
    expect(otlp.spans[0]!.resource).toMatchObject({ 'service.name': 'enrich', 'service.version': expect.any(String), 'vcs.ref.head.revision': COMMIT });
  });
});

describe('tracing with the collector down', () => {
  it('answers as usual, and SIGTERM still stops the server (the last export is bounded)', async () => {
    const closed = await freePort(); // nothing listens there: every export is refused
    const port = await freePort();
    const child = spawn(process.execPath, [ENRICH_BIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: lake.url,
        PORT: String(port),
        ENRICH_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        LIVE_SOURCE: '',
        LIVE_SOURCE_URL: '',
        REFRESH_IN_PROCESS: '0',
        WEBHOOK_DELIVERY_IN_PROCESS: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`,
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    try {
      await eventually(async () => {
        if (child.exitCode !== null) throw new Error(`enrich serve exited: ${out}`);
        return out.includes('"msg":"listening"');
      }, 120_000);
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
        const body = await res.json();
        await assertInContract('GET', '/api/v1/health', { status: res.status, headers: Object.fromEntries(res.headers), body });
        expect(res.status).toBe(200);
      }
      // Exports have been attempted (and refused) meanwhile; the process must still stop by itself.
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"stopped"');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 180_000);
});
