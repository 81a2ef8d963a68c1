/**
 * migrateLatest (db/knex.ts) answers "up to date" from one read of the applied migrations, and
 * leaves every other case to knex's migrator as before: a new database is migrated, and a database
 * that records a migration this code does not know (a newer release's) is still refused.
 */
import { createKnex, dropDatabase, ensureDatabase, migrateLatest, type Knex } from '../../../src/db/knex';
import { migrationSource } from '../../../src/db/migrations';
import { testDatabaseUrl } from '../../helpers/harness';

describe('migrateLatest', () => {
  const dbs: Knex[] = [];
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((db) => db.destroy()));
  });

  it('on an up-to-date database: nothing applied, one statement sent (no migrator lock, no transaction)', async () => {
    const db = createKnex(testDatabaseUrl(), 2);
    dbs.push(db);
    const sent: string[] = [];
    db.on('query', (q: { sql: string }) => sent.push(q.sql));
    await expect(migrateLatest(db)).resolves.toEqual([]);
    expect(sent).toEqual(['select "name" from "knex_migrations"']);
  });

  it('on a new database: every migration applied, then up to date; a recorded migration this code does not know is refused', async () => {
    // A database of its own: the refused case writes a row no other test may see.
    const url = new URL(testDatabaseUrl());
    const name = `${url.pathname.slice(1)}_fresh`;
    const admin = new URL(url);
    admin.pathname = '/postgres';
    await ensureDatabase(admin.toString(), name);
    try {
      url.pathname = `/${name}`;
      const db = createKnex(url.toString(), 2);
      dbs.push(db);
      const all = await migrationSource.getMigrations([]);
      await expect(migrateLatest(db)).resolves.toEqual(all);
      await expect(migrateLatest(db)).resolves.toEqual([]);
      // A newer release's migration recorded: the one read does not settle it, and knex's migrator
      // refuses the database as it always did (the file of that migration is missing here).
      await db('knex_migrations').insert({ name: '29991231000000_from_a_newer_release', batch: 999, migration_time: new Date() });
      await expect(migrateLatest(db)).rejects.toThrow(/29991231000000_from_a_newer_release/);
      await db.destroy();
      dbs.pop();
    } finally {
      await dropDatabase(admin.toString(), name);
    }
  });
});
