/**
 * GET /jobs/{id}/deliveries (issue 34): a list job's completion webhook with its attempts, as a
 * monitor's deliveries are shown. A job without webhook_url has none; a delivery a real HTTPS
 * receiver keeps failing stays pending with its attempts and its next attempt. (The succeeded
 * delivery after a retry, and another workspace's 404, are in completionWebhook.test.ts.)
 */
import { loadConfig } from '../../../src/config';
import { jobWebhooks } from '../../../src/jobs/listJobWorker';
import { startWorker, upload, useJobsWebhookHarness, waitForJob } from '../../helpers/listJobs';
import { eventually } from '../../helpers/live';
import { testCertificate, testDeliveryConfig, webhookTestConfig } from '../../helpers/webhooks';

const { h, receiver, resolver } = useJobsWebhookHarness();

describe('GET /jobs/{id}/deliveries', () => {
  it('lists no delivery for a job without webhook_url, and keeps a failing one pending with its next attempt', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const plain = await upload(h, key, 'email\nnobody@nowhere-corp.example\n');
    const hooked = await upload(h, key, 'email\nnobody@nowhere-corp.example\n', { query: `webhook_url=${encodeURIComponent(receiver.url('/down'))}` });
    expect((await h.get(`/api/v1/jobs/${hooked.body.job.id}/deliveries`, key)).body.results).toEqual([]);
    receiver.answer = () => ({ status: 503 });
    const config = { ...loadConfig({}), ...webhookTestConfig() };
    config.webhooks = { ...config.webhooks, delivery: { ...testDeliveryConfig({ schedule: [600, 600] }), caFile: testCertificate().certFile } };
    const worker = startWorker(h, {}, jobWebhooks(config, resolver.resolve));
    try {
      await waitForJob(h, key, plain.body.job.id, (j) => j.status === 'completed');
      const job = await waitForJob(h, key, hooked.body.job.id, (j) => j.status === 'completed');
      expect((await h.get(`/api/v1/jobs/${plain.body.job.id}/deliveries`, key)).body.results).toEqual([]);
      const delivery = await eventually(async () => {
        const res = await h.get(`/api/v1/jobs/${job.id}/deliveries`, key);
        return res.body.results[0]?.attempts.length >= 1 ? res.body.results[0] : undefined;
      }, 30_000);
      expect(delivery).toMatchObject({ event: 'job.completed', state: 'pending' });
      expect(delivery.attempts[0]).toMatchObject({ status_code: 503 });
      expect(Date.parse(delivery.next_attempt_at)).toBeGreaterThan(Date.parse(delivery.attempts[0].attempted_at));
    } finally {
      await worker.stop();
    }
  }, 120_000);

  it('404 for an unknown job id', async () => {
    const { key } = await h.workspace({ rateLimit: 1000 });
    const res = await h.get('/api/v1/jobs/00000000-0000-4000-8000-000000000000/deliveries', key);
    expect(res.status).toBe(404);
  });
});
