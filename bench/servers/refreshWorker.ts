/**
 * One refresh worker process for bench:refresh: the real RefreshWorker, no rate limit, every record
 * due; prints {"ready":true}, then on SIGTERM stops after its batch and prints its totals.
 * BENCH_STATEMENT_TIMINGS=1: also prints to stderr, at the end, the time spent in each statement
 * (from knex's query events: sent to answered, as this process sees it), largest first.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { HttpLiveSource } from '../../src/domain/live/httpSource';
import { ResilientSource } from '../../src/domain/live/resilience';
import { recordValidator } from '../../src/http/recordSchemas';
import { RefreshWorker } from '../../src/jobs/refreshWorker';

async function main() {
  const config = loadConfig();
  const knex = createKnex(process.env.DATABASE_URL as string, 4);
  const timings = process.env.BENCH_STATEMENT_TIMINGS === '1' ? statementTimings(knex) : undefined;
  const source = new ResilientSource(
    new HttpLiveSource({
      url: config.live.url as string,
      connections: 4,
      timeoutMs: 60_000,
      validatePerson: recordValidator('PersonResult'),
      validateCompany: recordValidator('CompanyResult'),
    }),
    { timeoutMs: 10_000, batchTimeoutMs: 60_000, concurrency: 4, queue: 16, breakerThreshold: 5, breakerCooldownMs: 1000 },
  );
  const worker = new RefreshWorker({
    db: knex,
    source,
    config: { ...config.refresh, rate: 0, minAgeSeconds: 0, watchedMinAgeSeconds: 0, batchSize: 100, progressSeconds: 3600 },
    logger: pino({ level: 'warn' }),
  });
  worker.start();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  process.once('SIGTERM', async () => {
    await worker.stop();
    process.stdout.write(`${JSON.stringify({ report: worker.report })}\n`);
    timings?.print();
    await source.close();
    await knex.destroy();
    process.exit(0);
  });
}

/** Milliseconds per statement text (its first 90 characters), and how often it ran. */
function statementTimings(knex: ReturnType<typeof createKnex>) {
  const started = new Map<string, { sql: string; at: bigint }>();
  const totals = new Map<string, { ms: number; n: number }>();
  const done = (q: { __knexQueryUid?: string }) => {
    const s = q.__knexQueryUid ? started.get(q.__knexQueryUid) : undefined;
    if (!s) return;
    started.delete(q.__knexQueryUid!);
    const t = totals.get(s.sql) ?? { ms: 0, n: 0 };
    t.ms += Number(process.hrtime.bigint() - s.at) / 1e6;
    t.n++;
    totals.set(s.sql, t);
  };
  knex.on('query', (q: { __knexQueryUid: string; sql: string }) =>
    started.set(q.__knexQueryUid, { sql: q.sql.replace(/\s+/g, ' ').slice(0, 90), at: process.hrtime.bigint() }),
  );
  knex.on('query-response', (_r: unknown, q: { __knexQueryUid?: string }) => done(q));
  knex.on('query-error', (_e: unknown, q: { __knexQueryUid?: string }) => done(q));
  return {
    print() {
      const rows = [...totals].sort((a, b) => b[1].ms - a[1].ms);
      for (const [sql, t] of rows.slice(0, 25)) process.stderr.write(`${t.ms.toFixed(0).padStart(8)} ms ${String(t.n).padStart(6)}x ${(t.ms / t.n).toFixed(2).padStart(7)} ms  ${sql}\n`);
    },
  };
}

void main();
