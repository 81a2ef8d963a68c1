/** List jobs in tests: upload a body, run a real worker on the run's database, wait for a state. */
import { createLogger } from '../../src/logger';
import { ListJobWorker } from '../../src/jobs/listJobWorker';
import type { Harness } from './harness';

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
export function startWorker(h: Harness, over: Partial<Harness['config']['jobs']> = {}): ListJobWorker {
  const w = new ListJobWorker({ db: h.knex, config: { ...h.config.jobs, pollMs: 20, ...over }, logger: createLogger('silent') });
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
        res.on('end', () => cb(null, text));
      }),
  );
}
