import { PROXY_MODE, startProxyRun } from './prismProxy';
import { createTestDatabase } from './testDatabase';

export default async function globalSetup(): Promise<void> {
  const db = await createTestDatabase();
  (globalThis as { __enrichTestDb?: unknown }).__enrichTestDb = db;
  // Workers inherit the environment of the process that runs globalSetup.
  process.env.TEST_DATABASE_URL = db.url;
  process.env.TEST_DATABASE_NAME = db.name;
  process.env.TEST_ADMIN_DATABASE_URL = db.adminUrl;
  if (PROXY_MODE) {
    const proxy = await startProxyRun();
    (globalThis as { __enrichProxyRun?: unknown }).__enrichProxyRun = proxy;
    process.env.ENRICH_TEST_PRISM_URL = proxy.prismUrl;
    process.env.ENRICH_TEST_UPSTREAM_URL = proxy.upstreamUrl;
    process.stdout.write(`\nproxy run: every contract request goes through prism proxy --errors at ${proxy.prismUrl}\n`);
  }
}
