/**
 * One webhook delivery worker process for bench:webhooks: the real DeliveryWorker with the
 * configuration of its environment; prints {"ready":true}, then on SIGTERM stops (attempts in
 * flight finish) and prints its totals.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createDeliveryWorker } from '../../src/jobs/deliveryWorker';

async function main() {
  const config = loadConfig();
  const worker = createDeliveryWorker(config, { databaseUrl: process.env.DATABASE_URL as string, logger: pino({ level: 'error' }) });
  worker.start();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  process.once('SIGTERM', async () => {
    await worker.stop();
    process.stdout.write(`${JSON.stringify({ totals: worker.totals })}\n`);
    process.exit(0);
  });
}

void main();
