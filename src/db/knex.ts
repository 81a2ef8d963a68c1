import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Config } from '../config';
import { databaseUrl, startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';
import { migrationSource } from './migrations';

export type { Knex };

// int8 (count(*), bigserial) arrives as a string by default; every count we return fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric (money amounts) to number; amounts here are small decimal sums.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export function createKnex(connectionString: string, poolMax = 10): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString, application_name: 'enrich' },
    pool: { min: 0, max: poolMax },
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

/**
 * A named (server-side prepared) statement on a pooled connection, for the hot single-row lookups:
 * PostgreSQL parses and plans it once per connection instead of on every request, which on a
 * machine shared with the server is CPU taken from the requests themselves.
 */
export async function preparedQuery<R>(db: Knex, name: string, text: string, values: unknown[]): Promise<R[]> {
  if (db.isTransaction) return (await db.raw(text.replace(/\$[0-9]+/g, '?'), values as Knex.RawBinding[])).rows as R[];
  const client = (await db.client.acquireConnection()) as pg.Client;
  try {
    return (await client.query({ name, text, values })).rows as R[];
  } finally {
    await db.client.releaseConnection(client);
  }
}

export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = await knex.migrate.latest();
  return applied as string[];
}

export interface Database {
  knex: Knex;
  url: string;
  embedded?: EmbeddedDatabase;
  close(): Promise<void>;
}

const EMBEDDED_DATABASE = 'enrich';

/** DATABASE_URL when set; otherwise the embedded server under <dataDir>/postgres with database `enrich`. */
export async function openDatabase(config: Config, log?: (line: string) => void): Promise<Database> {
  if (config.databaseUrl) {
    const knex = createKnex(config.databaseUrl);
    return { knex, url: config.databaseUrl, close: () => knex.destroy() };
  }
  const embedded = await startEmbeddedPostgres({ dir: `${config.dataDir}/postgres`, port: config.embeddedPgPort, log });
  await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  const url = databaseUrl(embedded.adminUrl, EMBEDDED_DATABASE);
  const knex = createKnex(url);
  return {
    knex,
    url,
    embedded,
    close: async () => {
      await knex.destroy();
      await embedded.stop();
    },
  };
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database ${pg.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        // 42P04 duplicate_database: another process created it between our check and create.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await client.end();
  }
}
