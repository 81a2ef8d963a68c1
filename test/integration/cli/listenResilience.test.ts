/**
 * `enrich listen` loses nothing (issue 32, rows 4 and 5), all for real: a real `enrich serve`
 * process that is stopped and started again, a plain-HTTP receiver that is really closed (refused
 * connections) and then answers 503, and `enrich listen` itself stopped and run again with the same
 * command. The receiver must end with every event acknowledged exactly once, in feed order; listen
 * must never move past an event its receiver did not answer 2xx. Also: `--events monitor.test` (its
 * own help's example) works, `--api-url` in the client's base-URL form (`.../api/v1`) is
 * normalised, and a `--forward-to` that is not a URL is refused at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/db/embedded';
import { ENRICH_BIN } from '../../helpers/cli';
import { testDatabaseUrl, useHarness } from '../../helpers/harness';
import { eventually } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';

// The harness writes the events (monitors, tests) on the run's database; the serve processes below
// answer listen's polls from the same database and run the feed's sequencer.
const h = useHarness({ workspaceRateLimit: 100_000, resolveHost: fakeResolver });

const children = new Set<ChildProcess>();
let dir: string;
let apiPort: number;
let receiverPort: number;

/** The receiver: what it answers is `answer`'s; every request is recorded with its status. */
const requests: { id: string; status: number }[] = [];
let answer = () => 204;
let receiver: http.Server | undefined;
function startReceiver(): Promise<void> {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = answer();
      requests.push({ id: String(req.headers['webhook-id']), status });
      res.statusCode = status;
      res.end();
    });
  });
  return new Promise((resolve) => receiver!.listen(receiverPort, '127.0.0.1', resolve));
}
async function stopReceiver(): Promise<void> {
  const r = receiver;
  receiver = undefined;
  if (!r) return;
  r.closeAllConnections();
  await new Promise((resolve) => r.close(resolve));
}
const acknowledged = () => requests.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.id);

function track(child: ChildProcess, out: { text: string }): ChildProcess {
  children.add(child);
  child.stdout!.on('data', (c) => (out.text += c));
  child.stderr!.on('data', (c) => (out.text += c));
  child.once('exit', () => children.delete(child));
  return child;
}
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

let serveLog = { text: '' };
async function serve(): Promise<ChildProcess> {
  serveLog = { text: '' };
  const child = track(
    spawn(process.execPath, [ENRICH_BIN, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        PORT: String(apiPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        REFRESH_IN_PROCESS: '0',
        WEBHOOK_DELIVERY_IN_PROCESS: '0',
        ENRICH_DATA_DIR: path.join(dir, 'server'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    serveLog,
  );
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`enrich serve exited ${child.exitCode}: ${serveLog.text}`);
    return serveLog.text.includes('"msg":"listening"');
  }, 60_000);
  return child;
}

let listenLog = { text: '' };
function listen(...extra: string[]): ChildProcess {
  listenLog = { text: '' };
  return track(
    spawn(
      process.execPath,
      [
        ENRICH_BIN, 'listen',
        '--forward-to', `http://127.0.0.1:${receiverPort}/hook`,
        // The client's base-URL form: listen must not ask for /api/v1/api/v1/events.
        '--api-url', `http://127.0.0.1:${apiPort}/api/v1/`,
        '--events', 'monitor.test',
        '--state-file', path.join(dir, 'listen-state.json'),
        '--interval', '200',
        '--max-backoff', '1000',
        ...extra,
      ],
      { env: { ...process.env, ENRICH_API_KEY: h.key(), ENRICH_DATA_DIR: path.join(dir, 'listen') }, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
    listenLog,
  );
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-listen-'));
  apiPort = await freePort();
  receiverPort = await freePort();
});

h.beforeClose(async () => {
  for (const child of [...children]) await stop(child);
  await stopReceiver();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('enrich listen loses nothing', () => {
  it('a stopped receiver, a 503, a restarted server and its own restart: every event acknowledged once, in order', async () => {
    try {
      await walk();
    } catch (err) {
      // What listen and the server printed, to tell a slow machine from a defect.
      throw new Error(`${(err as Error).message}\n--- enrich listen:\n${listenLog.text.slice(-6000)}\n--- enrich serve:\n${serveLog.text.slice(-3000)}\n--- receiver: ${JSON.stringify(requests)}`);
    }
  }, 240_000);

  async function walk() {
    let server = await serve();
    await startReceiver();
    let listener = listen();
    await eventually(async () => listenLog.text.includes('Ready'), 60_000);
    expect(listenLog.text).toContain('Starting at the end of the feed');

    const monitor = (
      await h.post('/api/v1/monitors', { type: 'person', subject_url: 'https://www.linkedin.com/in/listen-resilience', webhook_url: 'https://hooks.example.test/enrich' }, h.key())
    ).body.monitor;
    const sent: string[] = [];
    const sendTest = async () => {
      const res = await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, h.key());
      expect(res.status).toBe(202);
      sent.push(res.body.delivery.id);
      return res.body.delivery.id as string;
    };

    // 1. Received and acknowledged.
    const first = await sendTest();
    await eventually(async () => acknowledged().includes(first), 30_000);

    // 2. The receiver really stopped: refused connections, retried, never skipped.
    await stopReceiver();
    const second = await sendTest();
    await eventually(async () => listenLog.text.includes(`${second}  -> error:`) && listenLog.text.includes('not acknowledged'), 30_000);
    // A later event is not forwarded while this one is not acknowledged.
    const third = await sendTest();
    // 3. Back, but answering 503 once: still retried.
    let busy = 1;
    answer = () => (busy-- > 0 ? 503 : 204);
    await startReceiver();
    await eventually(async () => acknowledged().includes(third), 30_000);
    expect(requests.find((r) => r.id === second)?.status).toBe(503);
    // The third was first sent only after the second was acknowledged.
    const secondAcked = requests.findIndex((r) => r.id === second && r.status === 204);
    expect(requests.findIndex((r) => r.id === third)).toBeGreaterThan(secondAcked);

    // 4. The API server process stopped: polls fail and are retried; started again, listen carries on.
    await stop(server);
    const fourth = await sendTest();
    await eventually(async () => listenLog.text.includes('GET /events') && listenLog.text.includes('trying again'), 30_000);
    server = await serve();
    await eventually(async () => acknowledged().includes(fourth), 60_000);

    // 5. listen itself stopped; events meanwhile; the same command again resumes after the last one.
    await stop(listener);
    const fifth = await sendTest();
    const sixth = await sendTest();
    listener = listen();
    await eventually(async () => acknowledged().includes(sixth), 60_000);
    expect(listenLog.text).toContain(`Resuming after event ${fourth}`);

    // Every event acknowledged exactly once, in the order they were sent (the feed's order).
    expect(acknowledged()).toEqual(sent);
    expect([first, second, third, fourth, fifth, sixth]).toEqual(sent);
    await stop(listener);
    await stop(server);
  }

  it('refuses a --forward-to that is not a URL, at once', async () => {
    const child = listen('--forward-to', 'notaurl');
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(listenLog.text).toContain('--forward-to: not a URL: notaurl');
  }, 60_000);
});
