/**
 * The real service (embedded PostgreSQL or DATABASE_URL) on an ephemeral port; prints {"url"}.
 * BENCH_STATEMENT_TIMINGS=1: prints where its database time went when stopped (bench/statementTimings.ts).
 */
import { loadConfig } from '../../src/config';
import { startServer } from '../../src/main';
import { statementTimingsFromEnv } from '../statementTimings';

async function main() {
  const timings = statementTimingsFromEnv();
  const config = {
    ...loadConfig(),
    port: 0,
    logLevel: 'warn',
    // The bench measures the stack, not the limiter refusing it.
    anonymousRateLimit: 1_000_000_000,
  };
  const running = await startServer({ config });
  process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
  process.once('SIGTERM', () =>
    void running.stop().then(() => {
      timings?.print();
      process.exit(0);
    }),
  );
}

void main();
