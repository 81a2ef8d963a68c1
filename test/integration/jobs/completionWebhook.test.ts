/**
 * A list job's completion (issue 34, point 5): the job.completed event, and the signed Standard
 * Webhooks delivery to a real HTTPS receiver on loopback, retried after a 500, same webhook-id;
 * the secret is answered once by POST /jobs and never again; a private webhook_url is refused.
 */
import { createHmac } from 'node:crypto';
import { loadConfig } from '../../../src/config';
import { jobWebhooks } from '../../../src/jobs/listJobWorker';
import { startWorker, upload, useJobsWebhookHarness, waitForJob } from '../../helpers/listJobs';
import { eventually } from '../../helpers/live';
import { testCertificate, testDeliveryConfig, webhookTestConfig } from '../../helpers/webhooks';

const { h, receiver, resolver } = useJobsWebhookHarness();

/** Standard Webhooks, computed here independently of the service's signing code. */
function verify(secret: string, headers: Record<string, string>, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
  return headers['webhook-signature']!.split(' ').includes(`v1,${expected}`);
}

describe('a list job\'s completion', () => {
  it('is an event and a signed webhook, retried after a failure with the same webhook-id', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 1000 });
    const res = await upload(h, key, 'email\nnobody@nowhere-corp.example\n', { query: `webhook_url=${encodeURIComponent(receiver.url('/jobs'))}` });
    expect(res.status).toBe(202);
    const secret = res.body.webhook_secret as string;
    expect(secret).toMatch(/^whsec_/);
    // Shown once: never in the job again.
    const shown = await h.get(`/api/v1/jobs/${res.body.job.id}`, key);
    expect(JSON.stringify(shown.body)).not.toContain(secret.slice(6, 20));

    receiver.answer = (_req, nth) => (nth === 1 ? { status: 500 } : { status: 204 });
    const config = { ...loadConfig({}), ...webhookTestConfig() };
    config.webhooks = { ...config.webhooks, delivery: { ...testDeliveryConfig({ schedule: [0.3, 0.3] }), caFile: testCertificate().certFile } };
    const worker = startWorker(h, {}, jobWebhooks(config, resolver.resolve));
    try {
      const job = await waitForJob(h, key, res.body.job.id, (j) => j.status === 'completed');
      // The webhook's body is the job's event in the feed, byte for byte.
      const [event] = await h.knex('event_feed').where({ workspace_id: workspaceId }).select('id', 'job_id', 'event', 'body');
      expect(event).toMatchObject({ job_id: job.id, event: 'job.completed' });
      const got = await eventually(async () => (receiver.of(event!.id).length >= 2 ? receiver.of(event!.id) : undefined), 60_000);
      expect(got.map((r) => r.body)).toEqual([event!.body, event!.body]);
      for (const r of got) {
        expect(r.path).toBe('/jobs');
        expect(verify(secret, r.headers, r.body)).toBe(true);
      }
      expect(JSON.parse(got[0]!.body)).toMatchObject({ event: 'job.completed', job_id: job.id, job: { status: 'completed', rows_read: 1, matched: 0 } });
      await eventually(async () => (await h.knex('list_job_deliveries').where('id', event!.id).first())?.state === 'succeeded', 30_000);
      // The delivery log through the API (as a monitor's): the 500, then the 204 the receiver answered.
      const log = await h.get(`/api/v1/jobs/${job.id}/deliveries`, key);
      expect(log.status).toBe(200);
      expect(log.body.results).toHaveLength(1);
      const [delivery] = log.body.results;
      expect(delivery).toMatchObject({ id: event!.id, event: 'job.completed', state: 'succeeded', next_attempt_at: null });
      expect(delivery.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([500, 204]);
      expect(delivery.attempts[0].error).toMatch(/500/);
      expect(delivery.attempts[1].error).toBeNull();
      // Another workspace's key: 404, as for any of the job's reads.
      const other = await h.workspace({ rateLimit: 1000 });
      expect((await h.get(`/api/v1/jobs/${job.id}/deliveries`, other.key)).status).toBe(404);
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('400 VALIDATION_ERROR for a webhook_url to a private address, nothing kept', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 1000 });
    for (const url of ['https://10.0.0.8/hook', 'http://hooks.example.com/x', 'https://169.254.169.254/']) {
      const res = await upload(h, key, 'email\na@b.example\n', { query: `webhook_url=${encodeURIComponent(url)}` });
      expect(res.status).toBe(400);
    }
    expect(Number((await h.knex('list_jobs').where('workspace_id', workspaceId).count('* as n'))[0]!.n)).toBe(0);
  });
});
