/**
 * `enrich listen --monitor ID` without `--secret`: run as the operator where the server's
 * configuration is (its DATABASE_URL and server key), it signs with the monitor's own secret, the
 * one `enrich monitor secret` reveals to the subscriber, so a receiver set up for the real
 * deliveries verifies the forwarded ones unchanged. With an API key alone (no database) it cannot:
 * the API never returns the secret; it then signs with a printed session secret and says why.
 * Real processes, real receiver on 127.0.0.1, signatures checked by the standardwebhooks package.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ENRICH_BIN, enrichJson } from '../../helpers/cli';
import { testDatabaseUrl, useHarness } from '../../helpers/harness';
import { eventually } from '../../helpers/live';
import { fakeResolver, monitorBody } from '../../helpers/monitors';
import { listenOn, recordingReceiver, type Forwarded } from '../../helpers/forwardReceiver';

const h = useHarness({ workspaceRateLimit: 100_000, resolveHost: fakeResolver, feed: true });
let api: http.Server;
let receiver: http.Server;
const children: ChildProcess[] = [];
const received: Forwarded[] = [];


beforeAll(async () => {
  api = http.createServer(h.app.koa.callback());
  receiver = recordingReceiver(received);
  await listenOn(api);
  await listenOn(receiver);
});

// Before the harness closes: the children poll its app until they are stopped.
h.beforeClose(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => api.close(resolve));
  await new Promise((resolve) => receiver.close(resolve));
});

/** Starts `enrich listen --monitor id` with `env`; resolves with its output so far once Ready. */
async function startListen(monitorId: string, env: Record<string, string>): Promise<() => string> {
  let out = '';
  const child = spawn(
    process.execPath,
    [
      ENRICH_BIN, 'listen', '--monitor', monitorId,
      '--forward-to', `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`,
      '--api-url', `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      '--interval', '200',
    ],
    { env: { ...process.env, ENRICH_API_KEY: h.key(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  await eventually(async () => out.includes('Ready') || child.exitCode !== null, 60_000);
  return () => out;
}

const operatorEnv = () => ({
  DATABASE_URL: testDatabaseUrl(),
  ENRICH_DATA_DIR: h.config.dataDir,
  WEBHOOK_SECRET_KEY: h.config.webhooks.secretKey ?? '',
});

describe('enrich listen --monitor without --secret', () => {
  it("as the operator: signs with the monitor's own secret (the one revealed to the subscriber), without printing it", async () => {
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), h.key())).body.monitor;
    const out = await startListen(monitor.id, operatorEnv());
    expect(out()).toContain(`Signing secret: monitor ${monitor.id}'s own`);
    expect(out()).not.toContain('whsec_');
    const own = await enrichJson<{ secret: string }>('monitor', 'secret', monitor.id);

    const test = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, h.key());
    expect(test.status).toBe(202);
    await eventually(async () => received.some((r) => r.headers['webhook-id'] === test.body.delivery.id), 30_000);
    const delivery = received.find((r) => r.headers['webhook-id'] === test.body.delivery.id)!;
    const payload = new Webhook(own.secret).verify(delivery.body, delivery.headers) as Record<string, unknown>;
    expect(payload.id).toBe(test.body.delivery.id);
    await eventually(async () => out().includes(`monitor.test  ${test.body.delivery.id}  -> 204`), 10_000);
  }, 120_000);

  it('with an API key alone: a printed session secret, and the reason it is not the monitor\'s own', async () => {
    const monitor = (await h.post('/api/v1/monitors', monitorBody(), h.key())).body.monitor;
    const out = await startListen(monitor.id, { DATABASE_URL: '' });
    const secret = /Signing secret: (whsec_\S+) \(generated/.exec(out())?.[1];
    expect(secret).toBeDefined();
    expect(out()).toContain("Not the monitor's own secret: the API never returns it");
    expect(out()).toContain('DATABASE_URL is not set');

    const test = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, h.key());
    await eventually(async () => received.some((r) => r.headers['webhook-id'] === test.body.delivery.id), 30_000);
    const delivery = received.find((r) => r.headers['webhook-id'] === test.body.delivery.id)!;
    expect(new Webhook(secret!).verify(delivery.body, delivery.headers)).toMatchObject({ id: test.body.delivery.id });
  }, 120_000);

  it("another workspace's monitor is refused before anything is forwarded", async () => {
    const other = await h.workspace({ rateLimit: 1000 });
    const theirs = (await h.post('/api/v1/monitors', monitorBody(), other.key)).body.monitor;
    const out = await startListen(theirs.id, operatorEnv());
    expect(children.at(-1)!.exitCode).not.toBe(0);
    expect(out()).toContain('404');
    expect(out()).not.toContain('Ready');
  }, 120_000);
});
