import { destroyTestDatabase, type TestDatabase } from './testDatabase';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __enrichProxyRun?: { stop(): Promise<void> } }).__enrichProxyRun?.stop();
  const db = (globalThis as { __enrichTestDb?: TestDatabase }).__enrichTestDb;
  if (db) await destroyTestDatabase(db);
}
