/**
 * Global setup of the integration project: the run's database, and one `prism proxy --errors` that
 * every harness of the project sends its contract requests through (see prismProxy.ts).
 * ENRICH_TEST_PROXY=0 in the environment leaves Prism out, to debug a test without it.
 */
import { ensureTestDatabase } from './globalSetup';
import { startProxyRun } from './prismProxy';

const state = globalThis as { __enrichProxyRun?: Awaited<ReturnType<typeof startProxyRun>> };

export default async function globalSetupProxy(): Promise<void> {
  if (process.env.ENRICH_TEST_PROXY === '0' || state.__enrichProxyRun) {
    await ensureTestDatabase();
    return;
  }
  // Prism's start (reading the document) and the database's (migrations) side by side: the run's
  // first test waits for both.
  const [db, started] = await Promise.allSettled([ensureTestDatabase(), startProxyRun()]);
  if (db.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.stop();
    throw db.reason;
  }
  if (started.status === 'rejected') throw started.reason;
  const proxy = started.value;
  state.__enrichProxyRun = proxy;
  process.env.ENRICH_TEST_PRISM_URL = proxy.prismUrl;
  process.env.ENRICH_TEST_UPSTREAM_URL = proxy.upstreamUrl;
}
