/**
 * `enrich listen` forwards a list job's completion like any other feed event (issue 34, point 5):
 * the server on 127.0.0.1, a real list job run to completion by a real worker (this file's own
 * database: a worker claims every job of its database), `enrich listen` as a separate process with
 * only an API key and `--events job.completed job.failed`, a plain-HTTP receiver on 127.0.0.1. The
 * job's event must reach the receiver with the feed's body, signed with the secret listen printed
 * (a job has no monitor secret; verified by the standardwebhooks package), and listen must print
 * the receiver's status. A monitor's test event, filtered out by --events, must not be forwarded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { ENRICH_BIN } from '../../helpers/cli';
import { startWorker, upload, useJobsHarness, waitForJob } from '../../helpers/listJobs';
import { eventually } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';
import { listenOn, recordingReceiver, type Forwarded } from '../../helpers/forwardReceiver';

const h = useJobsHarness({}, { resolveHost: fakeResolver, feed: true });
let api: http.Server;
let receiver: http.Server;
let child: ChildProcess | undefined;
const received: Forwarded[] = [];
let stdout = '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-listen-jobs-'));


beforeAll(async () => {
  api = http.createServer(h.app.koa.callback());
  receiver = recordingReceiver(received);
});

// Before the harness closes: the child polls its app until it is stopped.
h.beforeClose(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (api.listening) await new Promise((resolve) => api.close(resolve));
  if (receiver.listening) await new Promise((resolve) => receiver.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('enrich listen and list jobs', () => {
  it("forwards a job's job.completed event to a local receiver, signed with the secret it printed", async () => {
    const key = h.key();
    const apiPort = await listenOn(api);
    const receiverPort = await listenOn(receiver);
    child = spawn(
      process.execPath,
      [
        ENRICH_BIN, 'listen',
        '--forward-to', `http://127.0.0.1:${receiverPort}/webhooks`,
        '--api-url', `http://127.0.0.1:${apiPort}/api/v1`,
        '--events', 'job.completed', 'job.failed',
        '--interval', '200',
        '--state-file', path.join(dir, 'state.json'),
      ],
      { env: { ...process.env, ENRICH_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stdout += c));
    await eventually(async () => stdout.includes('Ready'), 60_000);
    const secret = /Signing secret: (whsec_\S+)/.exec(stdout)![1]!;

    // A monitor's event in the same feed: not a job event, so not forwarded.
    const monitor = (
      await h.post('/api/v1/monitors', { type: 'person', subject_url: 'https://www.linkedin.com/in/listen-jobs-watched', webhook_url: 'https://hooks.example.test/enrich' }, key)
    ).body.monitor;
    expect((await h.post(`/api/v1/monitors/${monitor.id}/test`, undefined, key)).status).toBe(202);

    const submitted = await upload(h, key, 'email\nnobody@nowhere-corp.example\n');
    expect(submitted.status).toBe(202);
    const worker = startWorker(h);
    try {
      await waitForJob(h, key, submitted.body.job.id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }

    await eventually(async () => received.length > 0, 60_000);
    const [delivery] = received;
    const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'job.completed', job_id: submitted.body.job.id, job: { status: 'completed', rows_read: 1 } });
    expect(delivery!.headers['webhook-id']).toBe(payload.id);
    // The feed's stored body, byte for byte.
    const stored = (await h.knex('event_feed').where('id', payload.id as string).first('body')).body;
    expect(delivery!.body).toBe(stored);
    await eventually(async () => stdout.includes(`job.completed  ${payload.id as string}  -> 204`), 30_000);
    expect(received).toHaveLength(1);
    // The state file holds the job's event: a restart resumes after it.
    expect(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')).toContain(payload.id as string);
  }, 180_000);
});
