/**
 * List jobs in tests: upload a body, run a real worker, wait for a state. A file that runs a
 * worker uses a database of its own (`jobsDatabase`): a worker claims every job of its database,
 * and the run's database is shared by files running at the same time.
 */
import { createLogger } from '../../src/logger';
import { ListJobWorker } from '../../src/jobs/listJobWorker';
import { createHarness, type Harness } from './harness';
import { useLakeWorld } from './lakeWorld';
import { loadConfig } from '../../src/config';
import type { ResolveHost } from '../../src/domain/webhooks/ssrf';
import { Receiver, TestResolver, webhookTestConfig } from './webhooks';

export async function upload(h: Harness, key: string, body: string | Buffer, opts: { type?: string; query?: string } = {}) {
  return h.send(
    h.http
      .post(`/api/v1/jobs${opts.query ? `?${opts.query}` : ''}`)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', opts.type ?? 'text/csv')
      .send(typeof body === 'string' ? Buffer.from(body) : body),
  );
}

/** A worker on the harness's database (the real claim, lease and commit). */
export function startWorker(h: Harness, over: Partial<Harness['config']['jobs']> = {}, webhooks?: ConstructorParameters<typeof ListJobWorker>[0]['webhooks']): ListJobWorker {
  const w = new ListJobWorker({ db: h.knex, config: { ...h.config.jobs, pollMs: 20, ...over }, logger: createLogger('silent'), webhooks });
  w.start();
  return w;
}

/** Polls GET /jobs/{id} until `done(job)` (a generous deadline: the machine may be busy). */
export async function waitForJob(h: Harness, key: string, id: string, done: (job: { status: string; rows_done: number }) => boolean, deadlineMs = 60_000) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await h.get(`/api/v1/jobs/${id}`, key);
    if (res.status === 200 && done(res.body.job)) return res.body.job;
    if (Date.now() > until) throw new Error(`job ${id} did not reach the state in time: ${JSON.stringify(res.body.job ?? res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function results(h: Harness, key: string, id: string, query = '', accept = 'text/csv') {
  return h.send(
    h.http
      .get(`/api/v1/jobs/${id}/results${query ? `?${query}` : ''}`)
      .set('Authorization', `Bearer ${key}`)
      .set('Accept', accept)
      .buffer(true)
      .parse((res, cb) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        // Errors are JSON (the envelope); results are text.
        res.on('end', () => cb(null, /^application\/json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text));
      }),
  );
}

/** A harness on an empty database of this file's own (see above); `key()` is a workspace's key. */
export function useJobsHarness(
  jobs: Partial<Harness['config']['jobs']> = {},
  opts: { config?: Partial<Harness['config']>; resolveHost?: ResolveHost; feed?: boolean } = {},
): Harness & { key(): string; beforeClose: (fn: () => Promise<void>) => void } {
  const lake = useLakeWorld();
  let harness: Harness | undefined;
  let key: string | undefined;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    harness = await createHarness({
      databaseUrl: lake.url,
      config: { ...opts.config, jobs: { ...loadConfig({}).jobs, inProcess: false, ...jobs } },
      resolveHost: opts.resolveHost,
      feed: opts.feed,
    });
    key = (await harness.workspace({ rateLimit: 10_000 })).key;
  });
  lake.beforeClose(async () => {
    for (const fn of closers) await fn();
    await harness?.close();
  });
  return new Proxy({} as Harness & { key(): string; beforeClose: (fn: () => Promise<void>) => void }, {
    get: (_t, prop) => {
      if (prop === 'key') return () => key!;
      if (prop === 'beforeClose') return (fn: () => Promise<void>) => void closers.push(fn);
      if (!harness) throw new Error('useJobsHarness: the harness is only available inside tests');
      return harness[prop as keyof Harness];
    },
  });
}

/**
 * A jobs harness whose webhook_url may point at a real HTTPS receiver on loopback (started before
 * the tests, closed with the harness): the completion webhook's tests.
 */
export function useJobsWebhookHarness(): { h: ReturnType<typeof useJobsHarness>; receiver: Receiver; resolver: TestResolver } {
  const resolver = new TestResolver();
  const receiver = new Receiver();
  const h = useJobsHarness({}, { config: webhookTestConfig(), resolveHost: resolver.resolve });
  beforeAll(async () => {
    await receiver.start();
  });
  h.beforeClose(async () => {
    await receiver.close();
  });
  return { h, receiver, resolver };
}
