/**
 * `enrich serve --no-migrate`: the schema is another process's job (`enrich migrate`, run once per
 * release against the primary), and the server only checks that it is there. A server started on a
 * schema older than its code would fail request by request; it refuses to start instead.
 */
import type { Knex } from 'knex';
import { migrationSource } from './migrations';

/** Names of the migrations this code has that the database has not applied. Read only: no lock taken, no table created. */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const known = await migrationSource.getMigrations([]);
  const { rows: table } = await knex.raw<{ rows: { present: boolean }[] }>(`select to_regclass('knex_migrations') is not null as present`);
  const names = table[0]?.present ? (await knex.raw<{ rows: { name: string }[] }>('select name from knex_migrations')).rows.map((r) => r.name) : [];
  const applied = new Set(names);
  return known.map((m) => migrationSource.getMigrationName(m)).filter((name) => !applied.has(name));
}
