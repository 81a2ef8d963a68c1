import { destroyTestDatabase, type TestDatabase } from './testDatabase';

export default async function globalTeardown(): Promise<void> {
  const db = (globalThis as { __enrichTestDb?: TestDatabase }).__enrichTestDb;
  if (db) await destroyTestDatabase(db);
}
