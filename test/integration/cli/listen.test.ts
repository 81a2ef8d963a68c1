/**
 * `enrich listen --forward-to <url>`, the README's "Receiving webhooks on your machine" walk, run
 * for real: the server listening on 127.0.0.1, a plain-HTTP receiver on 127.0.0.1, `enrich listen`
 * as a separate process with only an API key, a monitor and `POST /monitors/{id}/test`. The event
 * must reach the receiver signed with the secret listen printed (verified by the standardwebhooks
 * package), with the feed's body, and listen must print the receiver's status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../../src/db/embedded';
import { ENRICH_BIN } from '../../helpers/cli';
import { useHarness } from '../../helpers/harness';
import { eventually } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';
import { listenOn, recordingReceiver, type Forwarded } from '../../helpers/forwardReceiver';

const h = useHarness({ workspaceRateLimit: 100_000, resolveHost: fakeResolver, feed: true });
let api: http.Server;
let receiver: http.Server;
let child: ChildProcess | undefined;
const others = new Set<ChildProcess>();
const received: Forwarded[] = [];
let stdout = '';


beforeAll(async () => {
  api = http.createServer(h.app.koa.callback());
  receiver = recordingReceiver(received);
});

// Before the harness closes: the children poll its app until they are stopped.
h.beforeClose(async () => {
  for (const c of others) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGTERM');
    await exited;
  }
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await new Promise((resolve) => api.close(resolve));
  await new Promise((resolve) => receiver.close(resolve));
});

describe('enrich listen', () => {
  it('forwards a monitor.test event to a local receiver, signed with the secret it printed, and prints the status', async () => {
    const apiPort = await listenOn(api);
    const receiverPort = await listenOn(receiver);
    child = spawn(
      process.execPath,
      [ENRICH_BIN, 'listen', '--forward-to', `http://127.0.0.1:${receiverPort}/webhooks`, '--api-url', `http://127.0.0.1:${apiPort}`, '--interval', '200'],
      { env: { ...process.env, ENRICH_API_KEY: h.key() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stdout += c));
    await eventually(async () => stdout.includes('Ready'), 60_000);
    const secret = /Signing secret: (whsec_\S+)/.exec(stdout)![1]!;

    const monitor = (
      await h.post('/api/v1/monitors', { type: 'person', subject_url: 'https://www.linkedin.com/in/someone-to-watch', webhook_url: 'https://hooks.example.test/enrich' }, h.key())
    ).body.monitor;
    const test = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, h.key());
    expect(test.status).toBe(202);

    await eventually(async () => received.length > 0, 30_000);
    const [delivery] = received;
    const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers) as Record<string, unknown>;
    expect(payload.id).toBe(test.body.delivery.id);
    expect(delivery!.headers['webhook-id']).toBe(test.body.delivery.id);
    // The feed's event, byte for byte what a real delivery carries.
    const feed = await h.get('/api/v1/events', h.key());
    expect(feed.body.results).toEqual([payload]);
    const stored = (await h.knex('monitor_deliveries').where('id', test.body.delivery.id).first('body')).body;
    expect(delivery!.body).toBe(stored);
    await eventually(async () => stdout.includes(`monitor.test  ${test.body.delivery.id}  -> 204`), 10_000);
    expect(received).toHaveLength(1);
  }, 120_000);

  it("the README's receiver (Node's crypto only, no dev dependency) verifies what listen forwards", async () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../../README.md'), 'utf8');
    const code = /SECRET=whsec_\.\.\. node -e '([\s\S]*?)'\n\s*# 3\./.exec(readme)?.[1];
    expect(code).toContain('listen(4000,"127.0.0.1")');
    expect(code).not.toContain('require("standardwebhooks")');
    const apiPort = (api.address() as AddressInfo).port;
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-listen-readme-'));
    let out = '';
    const listener = spawn(
      process.execPath,
      [ENRICH_BIN, 'listen', '--forward-to', `http://127.0.0.1:${port}/webhooks`, '--api-url', `http://127.0.0.1:${apiPort}`, '--interval', '200', '--state-file', path.join(dir, 'state.json')],
      { env: { ...process.env, ENRICH_API_KEY: h.key() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    others.add(listener);
    listener.stdout!.on('data', (c) => (out += c));
    listener.stderr!.on('data', (c) => (out += c));
    try {
      await eventually(async () => out.includes('Ready'), 60_000);
      const secret = /Signing secret: (whsec_\S+)/.exec(out)![1]!;
      let printed = '';
      // The snippet as written, on a free port instead of 4000, in a plain node process.
      const receiverProcess = spawn(process.execPath, ['-e', code!.replace('listen(4000,', `listen(${port},`)], {
        env: { PATH: process.env.PATH, SECRET: secret },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      others.add(receiverProcess);
      receiverProcess.stdout!.on('data', (c) => (printed += c));
      receiverProcess.stderr!.on('data', (c) => (printed += c));
      const monitor = (
        await h.post('/api/v1/monitors', { type: 'person', subject_url: 'https://www.linkedin.com/in/someone-else-to-watch', webhook_url: 'https://hooks.example.test/enrich' }, h.key())
      ).body.monitor;
      const test = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, h.key());
      expect(test.status).toBe(202);
      await eventually(async () => out.includes(`monitor.test  ${test.body.delivery.id}  -> 204`), 60_000);
      expect(printed).toContain('verified');
      expect(printed).toContain(test.body.delivery.id);
      expect(printed).not.toContain('BAD SIGNATURE');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
