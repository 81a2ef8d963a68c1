/**
 * Global setup of the projects that need PostgreSQL: one database for the run, created once even
 * when several projects run (jest runs globalSetup.ts and globalSetupProxy.ts one after the other
 * in the same process) and dropped by globalTeardown.ts.
 */
import { createTestDatabase, type TestDatabase } from './testDatabase';

const state = globalThis as { __enrichTestDb?: Promise<TestDatabase> };

export async function ensureTestDatabase(): Promise<TestDatabase> {
  state.__enrichTestDb ??= createTestDatabase();
  const db = await state.__enrichTestDb;
  // Workers inherit the environment of the process that runs globalSetup.
  process.env.TEST_DATABASE_URL = db.url;
  process.env.TEST_DATABASE_NAME = db.name;
  process.env.TEST_ADMIN_DATABASE_URL = db.adminUrl;
  return db;
}

export default async function globalSetup(): Promise<void> {
  await ensureTestDatabase();
}
