/**
 * At-least-once across a crash, with real `enrich worker` processes on a database of their own:
 * the receiver gets the body, the worker is SIGKILLed before it can record the success, and after
 * a restart (once the lease expires) the same webhook-id and body arrive again. SIGTERM lets the
 * attempt in flight finish and record its outcome before the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { ENRICH_BIN } from '../../helpers/cli';
import { createHarness, type Harness } from '../../helpers/harness';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { eventually } from '../../helpers/live';
import { monitorBody } from '../../helpers/monitors';
import { deliveryRow, Receiver, TEST_SERVER_KEY, testCertificate, TestResolver, webhookTestConfig } from '../../helpers/webhooks';

const resolver = new TestResolver();
const receiver = new Receiver();
let h: Harness;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await receiver.close();
  await h?.close();
});
const lake = useLakeWorld();

beforeAll(async () => {
  h = await createHarness({ databaseUrl: lake.url, config: webhookTestConfig(), resolveHost: resolver.resolve });
  await receiver.start();
});

function startWorker(): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [ENRICH_BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: lake.url,
      ENRICH_DATA_DIR: os.tmpdir(),
      LIVE_SOURCE: '',
      LIVE_SOURCE_URL: '',
      LOG_LEVEL: 'info',
      WEBHOOK_SECRET_KEY: TEST_SERVER_KEY,
      WEBHOOK_CA_FILE: testCertificate().certFile,
      WEBHOOKS_ALLOW_LOOPBACK: '1',
      // A short lease (a killed worker's deliveries are sent again soon), which must outlast an
      // attempt: config.ts refuses a lease at or below the attempt timeout.
      WEBHOOK_LEASE_SECONDS: '4',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_POLL_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  children.push(child);
  return Object.assign(child, { output: () => out });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

describe('a delivery worker process', () => {
  it('SIGKILLed after the receiver got the body: the same webhook-id is delivered again after a restart', async () => {
    const { key } = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/crash', '127.0.0.1') }), key)).body.monitor;
    receiver.answer = () => ({ status: 200, hang: true });
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id;

    const first = startWorker();
    await eventually(async () => receiver.of(id).length === 1, 60_000);
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    const held = await deliveryRow(h.knex, id);
    expect(held).toMatchObject({ state: 'pending', attempts: [] });
    expect(held.lease_token).not.toBeNull();

    receiver.answer = () => ({ status: 204 });
    const second = startWorker();
    await eventually(async () => (await deliveryRow(h.knex, id))?.state === 'succeeded', 60_000);
    const sent = receiver.of(id);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers['webhook-id']).toBe(id);
    expect(sent[1]!.body).toBe(sent[0]!.body);
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 120_000);

  it('SIGTERM lets the attempt in flight finish and record its outcome', async () => {
    const { key } = await h.workspace();
    const monitor = (await h.post('/api/v1/monitors', monitorBody({ webhook_url: receiver.url('/term', '127.0.0.1') }), key)).body.monitor;
    let arrived = false;
    receiver.answer = () => {
      arrived = true;
      return { status: 204, delayMs: 1500 };
    };
    const id = (await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).body.delivery.id;
    const worker = startWorker();
    await eventually(async () => arrived, 60_000);
    worker.kill('SIGTERM');
    const exit = await exited(worker);
    expect(exit.code).toBe(0);
    const row = await deliveryRow(h.knex, id);
    expect(row).toMatchObject({ state: 'succeeded', lease_token: null });
    expect(row.attempts).toMatchObject([{ status_code: 204, error: null }]);
    expect(receiver.of(id)).toHaveLength(1);
  }, 120_000);
});
