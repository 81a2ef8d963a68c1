/**
 * Where tests get PostgreSQL: DATABASE_URL's server when set (CI points it at the local server),
 * otherwise the embedded server under .data/test-postgres. Either way each run creates its own
 * database and drops it afterwards.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../../src/db/knex';
import { databaseUrl, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';

export interface TestDatabase {
  adminUrl: string;
  name: string;
  url: string;
  embedded?: EmbeddedDatabase;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  let adminUrl = process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({
      dir: path.resolve(__dirname, '../../.data/test-postgres'),
      port: Number(process.env.EMBEDDED_TEST_PG_PORT || 54339),
    });
    adminUrl = embedded.adminUrl;
  }
  const name = `enrich_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  const knex = createKnex(url);
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
  return { adminUrl, name, url, embedded };
}

export async function destroyTestDatabase(db: TestDatabase): Promise<void> {
  await dropDatabase(db.adminUrl, db.name);
  await db.embedded?.stop();
}
