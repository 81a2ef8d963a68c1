/**
 * Where tests get PostgreSQL: DATABASE_URL's server when set (CI points it at the local server),
 * otherwise the embedded server under .data/test-postgres. Either way each run creates its own
 * database and drops it afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createKnex } from '../../src/db/knex';
import { databaseUrl, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';
import { createTestDatabaseOn, dropTestDatabase, prepareTestDatabase } from './clusterDatabase';

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
    // A cluster of its own per run (initdb takes about a second), so concurrent runs never share one.
    embedded = await startEmbeddedPostgres({
      dir: fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-test-pg-')),
      // A free port per run, so a test run never collides with `npm start` or another run.
      port: Number(process.env.EMBEDDED_TEST_PG_PORT) || (await freePort()),
    });
    adminUrl = embedded.adminUrl;
  }
  const name = `enrich_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await createTestDatabaseOn(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  const knex = createKnex(url);
  try {
    // Migrated; on a Citus cluster (clusterDatabase.ts) also laid out.
    await prepareTestDatabase(knex);
  } finally {
    await knex.destroy();
  }
  return { adminUrl, name, url, embedded };
}

export async function destroyTestDatabase(db: TestDatabase): Promise<void> {
  await dropTestDatabase(db.adminUrl, db.name);
  // The lake templates of the run (lakeWorld.ts), named after its database.
  const admin = createKnex(db.adminUrl, 1);
  try {
    const { rows } = await admin.raw<{ rows: { datname: string }[] }>("select datname from pg_database where starts_with(datname, ?)", [`${db.name}_tpl_`]);
    for (const { datname } of rows) {
      await dropTestDatabase(db.adminUrl, datname);
      fs.rmSync(path.join(os.tmpdir(), `${datname}.records.json`), { force: true });
    }
  } finally {
    await admin.destroy();
  }
  if (db.embedded) {
    await db.embedded.stop();
    fs.rmSync(db.embedded.dir, { recursive: true, force: true });
  }
}
