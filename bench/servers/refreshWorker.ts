/**
 * One refresh worker process for bench:refresh: the real RefreshWorker, no rate limit, every record
 * due; prints {"ready":true}, then on SIGTERM stops after its batch and prints its totals.
 * BENCH_STATEMENT_TIMINGS=1: also prints to stderr, at the end, the time spent in each statement
 * (bench/statementTimings.ts).
 */
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createKnex } from '../../src/db/knex';
import { HttpLiveSource } from '../../src/domain/live/httpSource';
import { ResilientSource } from '../../src/domain/live/resilience';
import { recordValidator } from '../../src/http/recordSchemas';
import { RefreshWorker } from '../../src/jobs/refreshWorker';
import { statementTimingsFromEnv } from '../statementTimings';

async function main() {
  const config = loadConfig();
  const knex = createKnex(process.env.DATABASE_URL as string, 4);
  const timings = statementTimingsFromEnv();
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

void main();
