import { destroyTestDatabase, type TestDatabase } from './testDatabase';

const state = globalThis as { __enrichProxyRun?: { stop(): Promise<void> }; __enrichTestDb?: Promise<TestDatabase> };

export default async function globalTeardown(): Promise<void> {
  await state.__enrichProxyRun?.stop();
  state.__enrichProxyRun = undefined;
  const db = state.__enrichTestDb;
  state.__enrichTestDb = undefined;
  if (db) await destroyTestDatabase(await db);
}
