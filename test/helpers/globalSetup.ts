import { createTestDatabase } from './testDatabase';

export default async function globalSetup(): Promise<void> {
  const db = await createTestDatabase();
  (globalThis as { __enrichTestDb?: unknown }).__enrichTestDb = db;
  // Workers inherit the environment of the process that runs globalSetup.
  process.env.TEST_DATABASE_URL = db.url;
  process.env.TEST_DATABASE_NAME = db.name;
  process.env.TEST_ADMIN_DATABASE_URL = db.adminUrl;
}
