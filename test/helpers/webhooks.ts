/**
 * Webhook delivery tests: a real HTTPS receiver on loopback with a self-signed certificate made
 * here with openssl (trusted by the delivery client through its CA option), a resolver whose
 * answers a test can change (DNS rebinding), and a delivery worker on the test's database.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Knex } from 'knex';
import { loadConfig, type Config, type DeliveryConfig } from '../../src/config';
import type { Metrics } from '../../src/observability/metrics';
import { DeliveryWorker } from '../../src/jobs/deliveryWorker';
import { loadServerKeys, type ServerKeys } from '../../src/domain/webhooks/secrets';
import { systemResolver, type ResolveHost } from '../../src/domain/webhooks/ssrf';
import { closeQueue, type BeforeClose } from './beforeClose';
import { createHarness, type Harness } from './harness';
import { createLakeWorld } from './lakeWorld';

/** The server key of the tests' monitor secrets (base64 of 32 bytes). */
export const TEST_SERVER_KEY = Buffer.alloc(32, 7).toString('base64');
export const testKeys = (): ServerKeys => loadServerKeys({ key: TEST_SERVER_KEY, previous: [], dataDir: os.tmpdir() });

/** Names the test certificate is valid for; the resolver maps them to loopback. */
export const RECEIVER_HOST = 'receiver.test';
export const REBIND_HOST = 'rebind.test';

export interface TestCertificate {
  key: string;
  cert: string;
  /** PEM files, for a worker process (WEBHOOK_CA_FILE). */
  certFile: string;
}

let certificate: TestCertificate | undefined;
let certificateDir: string | undefined;

// The PEM files are read by the worker processes a test file starts: removed when that file ends
// (jest gives each file its own copy of this module, so each file removes its own).
afterAll(() => {
  if (certificateDir) fs.rmSync(certificateDir, { recursive: true, force: true });
});

/** A self-signed certificate for receiver.test, rebind.test and 127.0.0.1, made once per file. */
export function testCertificate(): TestCertificate {
  if (certificate) return certificate;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-webhook-cert-'));
  certificateDir = dir;
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', `/CN=${RECEIVER_HOST}`,
    '-addext', `subjectAltName=DNS:${RECEIVER_HOST},DNS:${REBIND_HOST},IP:127.0.0.1`,
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  certificate = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
  return certificate;
}

/** A resolver with names a test can repoint; other names go to the system resolver. */
export class TestResolver {
  readonly names = new Map<string, string[]>([
    [RECEIVER_HOST, ['127.0.0.1']],
    [REBIND_HOST, ['127.0.0.1']],
  ]);
  readonly resolve: ResolveHost = async (host) => this.names.get(host.toLowerCase()) ?? systemResolver(host);
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Never answer (the request is held until the receiver closes). */
  hang?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
}

/** The receiver: every request recorded; `answer` decides each answer (default 204). */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  /** TCP connections accepted, whatever followed: zero means nothing reached it. */
  connections = 0;
  answer: (req: ReceivedRequest, nth: number) => Answer = () => ({ status: 204 });
  private server!: https.Server;
  private readonly held: import('node:http').ServerResponse[] = [];
  port = 0;

  async start(): Promise<this> {
    const { key, cert } = testCertificate();
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = {
          path: req.url ?? '',
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(received);
        const a = this.answer(received, this.requests.length);
        if (a.hang) return void this.held.push(res);
        if (a.delayMs) return void setTimeout(() => res.writeHead(a.status, a.headers).end(), a.delayMs);
        res.writeHead(a.status, a.headers).end();
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  url(pathname = '/hook', host = RECEIVER_HOST): string {
    return `https://${host}:${this.port}${pathname}`;
  }

  /** Requests carrying this webhook-id. */
  of(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['webhook-id'] === id);
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Delivery settings for tests: a short schedule and lease; the contract's values elsewhere. */
export function testDeliveryConfig(overrides: Partial<DeliveryConfig> = {}): DeliveryConfig {
  return {
    ...loadConfig({}).webhooks.delivery,
    schedule: [0.3, 0.3],
    timeoutMs: 5000,
    leaseSeconds: 30,
    pollMs: 50,
    ...overrides,
  };
}

/** Harness config: the test server key, and loopback receivers allowed unless a test says not. */
export function webhookTestConfig(opts: { allowLoopback?: boolean } = {}): Partial<Config> {
  const base = loadConfig({});
  return {
    webhooks: {
      ...base.webhooks,
      secretKey: TEST_SERVER_KEY,
      allowLoopback: opts.allowLoopback ?? true,
      delivery: { ...base.webhooks.delivery, inProcess: false },
    },
  };
}

export const silentLogger = pino({ level: 'silent' });

export function deliveryWorker(
  db: Knex,
  opts: { resolver: TestResolver; allowLoopback?: boolean; config?: Partial<DeliveryConfig>; logger?: pino.Logger; metrics?: Metrics },
): DeliveryWorker {
  return new DeliveryWorker({
    db,
    keys: testKeys(),
    config: testDeliveryConfig(opts.config),
    ssrf: { allowLoopback: opts.allowLoopback ?? true },
    logger: opts.logger ?? silentLogger,
    resolveHost: opts.resolver.resolve,
    ca: testCertificate().cert,
    metrics: opts.metrics,
  });
}

/** The stored delivery row (state, attempts) for assertions in plain SQL. */
export async function deliveryRow(db: Knex, id: string) {
  return db('monitor_deliveries').where({ id }).first();
}

let payloadAjv: import('ajv/dist/2020').default | undefined;

/**
 * Checks a received body against the contract's `webhooks` section for its event (the request body
 * schema of that webhook); returns the problems, empty when it conforms.
 */
export function webhookPayloadProblems(body: { event?: unknown }): string[] {
  if (!payloadAjv) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Ajv2020 = require('ajv/dist/2020').default as typeof import('ajv/dist/2020').default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const addFormats = require('ajv-formats').default as typeof import('ajv-formats').default;
    payloadAjv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(payloadAjv);
    const doc = JSON.parse(fs.readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8'));
    payloadAjv.addSchema({ ...doc, $id: 'contract' });
  }
  const event = String(body.event);
  const validate = payloadAjv.getSchema(`contract#/webhooks/${event}/post/requestBody/content/application~1json/schema`);
  if (!validate) return [`no webhook named ${event} in the contract`];
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/**
 * A harness on a database of its own (a clone of the empty lake): every delivery worker claims
 * every due delivery of its database, so files that run at the same time must not share one.
 * `beforeClose` registers what must stop while the database is still open (workers, receivers).
 */
export function useWebhookHarness(opts: { resolver: TestResolver; allowLoopback?: boolean; feed?: boolean }): {
  h: Harness;
  beforeClose: BeforeClose;
} {
  let lake: { world: { url: string }; close(): Promise<void> } | undefined;
  let harness: Harness | undefined;
  const closing = closeQueue();
  beforeAll(async () => {
    lake = await createLakeWorld();
    harness = await createHarness({ databaseUrl: lake.world.url, config: webhookTestConfig({ allowLoopback: opts.allowLoopback }), resolveHost: opts.resolver.resolve, feed: opts.feed });
  }, 180_000);
  afterAll(async () => {
    await closing.run();
    await harness?.close();
    await lake?.close();
  }, 120_000);
  const h = new Proxy({} as Harness, {
    get: (_t, prop) => {
      if (!harness) throw new Error('useWebhookHarness: the harness is only available inside tests');
      return harness[prop as keyof Harness];
    },
  });
  return { h, beforeClose: closing.beforeClose };
}

/**
 * useWebhookHarness with what every delivery test file sets up around it: HTTPS receivers started
 * before the file's tests, and delivery workers started by `startWorker`; whatever still runs is
 * stopped while the file's database is open.
 */
export function useDeliveryRig(opts: { allowLoopback?: boolean; receivers?: number; feed?: boolean } = {}) {
  const resolver = new TestResolver();
  const receivers = Array.from({ length: opts.receivers ?? 1 }, () => new Receiver());
  const running = new Set<DeliveryWorker>();
  const { h, beforeClose } = useWebhookHarness({ resolver, allowLoopback: opts.allowLoopback, feed: opts.feed });
  beforeClose(async () => {
    // Receivers first: a worker's stop waits for its attempt in flight, and an attempt held by a
    // hanging receiver would otherwise run to its timeout (5 s) before the file can end.
    for (const r of receivers) await r.close();
    await Promise.all([...running].map((w) => w.stop()));
  });
  beforeAll(async () => {
    for (const r of receivers) await r.start();
  });
  return {
    h,
    resolver,
    receiver: receivers[0]!,
    receivers,
    startWorker(workerOpts: Omit<Parameters<typeof deliveryWorker>[1], 'resolver'> = {}): DeliveryWorker {
      const w = deliveryWorker(h.knex, { resolver, ...workerOpts });
      running.add(w);
      w.start();
      return w;
    },
    async stopWorker(w: DeliveryWorker): Promise<void> {
      running.delete(w);
      await w.stop();
    },
  };
}
