/**
 * A list job's completion in the workspace's event feed (issue 34, point 5): real jobs run by a
 * real worker on this file's own database, the feed's real sequencer, monitors' events recorded
 * by the API around them. GET /events must list `job.completed` in the one feed order with the
 * monitors' events; a job that fails for real (its lake table gone while it runs: every claim of
 * its chunk fails until the attempts run out) gives `job.failed`; `event=` and `monitor_id=`
 * filter; a deleted job's event leaves the feed and `after=` it still resumes. Every answer goes
 * through the harness's contract validator (FeedEvent's oneOf included).
 */
import { deleteExpiredJobs } from '../../../src/domain/jobs/work';
import { startWorker, upload, useJobsHarness, waitForJob } from '../../helpers/listJobs';
import { eventually } from '../../helpers/live';
import { fakeResolver } from '../../helpers/monitors';

const h = useJobsHarness({}, { resolveHost: fakeResolver, feed: true });

type FeedItem = { id: string; event: string; monitor_id?: string; job_id?: string; job?: Record<string, unknown> };

async function feed(key: string, query = ''): Promise<FeedItem[]> {
  const res = await h.get(`/api/v1/events?per_page=100${query ? `&${query}` : ''}`, key);
  expect(res.status).toBe(200);
  return res.body.results as FeedItem[];
}

/** Waits until every event recorded for the workspace so far has its feed position. */
const sequenced = (workspaceId: string) =>
  eventually(async () => Number((await h.knex('event_feed').where({ workspace_id: workspaceId }).whereNull('position').count('* as n'))[0]!.n) === 0, 30_000);

async function monitorOf(key: string, slug: string): Promise<string> {
  const res = await h.post(
    '/api/v1/monitors',
    { type: 'person', subject_url: `https://www.linkedin.com/in/${slug}`, webhook_url: 'https://hooks.example.test/enrich' },
    key,
  );
  expect(res.status).toBe(201);
  return res.body.monitor.id as string;
}

async function testEvent(key: string, monitorId: string): Promise<string> {
  const res = await h.post(`/api/v1/monitors/${monitorId}/test`, undefined, key);
  expect(res.status).toBe(202);
  return res.body.delivery.id as string;
}

describe("a list job's completion in the event feed", () => {
  it('job.completed is listed in feed order with the monitors\' events; event= and monitor_id= filter; other workspaces see nothing', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const other = await h.workspace({ rateLimit: 100_000 });
    const monitorId = await monitorOf(key, 'jobfeed-watched-1');
    const before = await testEvent(key, monitorId);
    await sequenced(workspaceId);

    const submitted = await upload(h, key, 'email\nnobody@nowhere-corp.example\nsomeone@elsewhere.example\n');
    expect(submitted.status).toBe(202);
    const worker = startWorker(h);
    let job: { id: string; matched: number; unmatched: number; failed: number; rows_read: number };
    try {
      job = await waitForJob(h, key, submitted.body.job.id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }
    // The job's event committed with the job's completion: it waits for its position like any other.
    expect(Number((await h.knex('event_feed').where({ job_id: job.id }).count('* as n'))[0]!.n)).toBe(1);
    const after = await testEvent(key, monitorId);
    await sequenced(workspaceId);

    const all = await feed(key);
    expect(all.map((e) => e.event)).toEqual(['monitor.test', 'job.completed', 'monitor.test']);
    expect(all[0]!.id).toBe(before);
    expect(all[2]!.id).toBe(after);
    const event = all[1]!;
    expect(event).toEqual({
      id: expect.any(String),
      event: 'job.completed',
      job_id: job.id,
      timestamp: expect.stringMatching(/^[0-9]+$/),
      job: { status: 'completed', rows_read: 2, matched: job.matched, unmatched: job.unmatched, failed: job.failed },
    });
    expect(job.matched + job.unmatched + job.failed).toBe(2);
    // No monitor: the key is absent, not null.
    expect('monitor_id' in event).toBe(false);

    expect((await feed(key, 'event=job.completed')).map((e) => e.id)).toEqual([event.id]);
    expect(await feed(key, 'event=job.failed')).toEqual([]);
    expect((await feed(key, 'event=job.completed&event=monitor.test')).map((e) => e.id)).toEqual([before, event.id, after]);
    expect((await feed(key, `monitor_id=${monitorId}`)).map((e) => e.id)).toEqual([before, after]);
    // after= the job's event resumes right after it.
    expect((await feed(key, `after=${event.id}`)).map((e) => e.id)).toEqual([after]);
    // Another workspace: nothing, and the event is not one of its own.
    expect(await feed(other.key)).toEqual([]);
    expect((await h.get(`/api/v1/events?after=${event.id}`, other.key)).status).toBe(400);
  }, 120_000);

  it('a job that fails for real gives job.failed with its counts', async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    // Name rows go through the match, which reads the lake's persons table. With the table gone
    // every claim of the chunk fails; a lease of 1 s brings the next claim quickly, and past the
    // attempts the job fails (work.ts MAX_CHUNK_ATTEMPTS).
    const submitted = await upload(h, key, 'name,company\nJane Okafor,Northwind Analytics\nOmar Haddad,Brightwave\n');
    expect(submitted.status).toBe(202);
    await h.knex.raw('alter table persons rename to persons_gone');
    const worker = startWorker(h, { leaseSeconds: 1 });
    let job: { id: string; status: string; rows_read: number; matched: number; unmatched: number; failed: number };
    try {
      job = await waitForJob(h, key, submitted.body.job.id, (j) => j.status === 'failed', 120_000);
    } finally {
      await worker.stop();
      await h.knex.raw('alter table persons_gone rename to persons');
    }
    await sequenced(workspaceId);
    const [event, ...rest] = await feed(key);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ event: 'job.failed', job_id: job.id, job: { status: 'failed', rows_read: 2, matched: 0, unmatched: 0, failed: 2 } });
    expect(job.failed).toBe(2);
    expect((await feed(key, 'event=job.failed')).map((e) => e.id)).toEqual([event!.id]);
    expect(await feed(key, 'event=job.completed')).toEqual([]);
  }, 180_000);

  it("deleting a job takes its event out of the feed; after= it still resumes", async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const monitorId = await monitorOf(key, 'jobfeed-watched-3');
    const submitted = await upload(h, key, 'email\nnobody@nowhere-corp.example\n');
    const worker = startWorker(h);
    try {
      await waitForJob(h, key, submitted.body.job.id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }
    const next = await testEvent(key, monitorId);
    await sequenced(workspaceId);
    const [jobEvent, testEv] = await feed(key);
    expect(jobEvent).toMatchObject({ event: 'job.completed', job_id: submitted.body.job.id });
    expect(testEv!.id).toBe(next);

    const deleted = await h.send(h.http.delete(`/api/v1/jobs/${submitted.body.job.id}`).set('Authorization', `Bearer ${key}`));
    expect(deleted.status).toBe(200);
    expect((await feed(key)).map((e) => e.id)).toEqual([next]);
    expect(await feed(key, 'event=job.completed')).toEqual([]);
    // A tombstone: the position stays, the body is gone.
    const row = await h.knex('event_feed').where('id', jobEvent!.id).first('body', 'position');
    expect(row.body).toBeNull();
    expect(row.position).not.toBeNull();
    expect((await feed(key, `after=${jobEvent!.id}`)).map((e) => e.id)).toEqual([next]);
  }, 120_000);

  it("a job past its retention leaves the feed the same way (the worker's sweep)", async () => {
    const { key, workspaceId } = await h.workspace({ rateLimit: 100_000 });
    const submitted = await upload(h, key, 'email\nnobody@nowhere-corp.example\n');
    const worker = startWorker(h);
    try {
      await waitForJob(h, key, submitted.body.job.id, (j) => j.status === 'completed');
    } finally {
      await worker.stop();
    }
    await sequenced(workspaceId);
    const [jobEvent] = await feed(key);
    expect(jobEvent).toMatchObject({ event: 'job.completed', job_id: submitted.body.job.id });
    await h.knex('list_jobs').where('id', submitted.body.job.id).update({ expires_at: h.knex.raw("now() - interval '1 second'") });
    expect(await deleteExpiredJobs(h.knex)).toBeGreaterThanOrEqual(1);
    expect((await h.get(`/api/v1/jobs/${submitted.body.job.id}`, key)).status).toBe(404);
    expect(await feed(key)).toEqual([]);
    expect(await feed(key, `after=${jobEvent!.id}`)).toEqual([]);
  }, 120_000);
});
