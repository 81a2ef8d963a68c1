/**
 * Where a test database lives when the run's server is a Citus cluster (`npm run test:citus:suite`,
 * test/helpers/globalSetupCitus.ts) and not one PostgreSQL. Every helper that makes a database of its
 * own (the run's database, lakeWorld.ts's templates and clones, identifierPool.ts's isolated one)
 * goes through these three functions; on one PostgreSQL (TEST_CITUS_WORKER_URLS unset) they are
 * exactly what the helpers did before: CREATE DATABASE, migrate, DROP DATABASE.
 *
 * On Citus a database is a database of every node: its name exists on the coordinator and on each
 * worker, the extension is created in each, and the coordinator's copy registers the workers (the
 * node metadata is per database). The lake is then migrated and laid out (`enrich distribute`'s
 * applyDistributedLayout) before anything is written to it.
 *
 * A clone of a template (CREATE DATABASE … TEMPLATE, lakeWorld.ts) is made on every node from that
 * node's copy of the template: the coordinator's catalog of shards and placements then names the
 * workers' copies of the same shards, so the clone is a consistent cluster database of its own. Two
 * things a file copy does not carry over are redone on the clone: database-level settings (the
 * layout's `citus.propagate_set_commands`), by running the layout again (it only fills what is
 * missing). And Citus keeps a maintenance daemon connected to every database that has the extension,
 * which CREATE DATABASE … TEMPLATE and ALTER DATABASE … RENAME refuse ("being accessed by other
 * users"): the daemon is ended first (it comes back by itself after 5 s), and the statement retried.
 */
import pg from 'pg';
import { applyDistributedLayout } from '../../src/db/citusLayout';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest, type Knex } from '../../src/db/knex';
import { databaseUrl } from '../../src/db/embedded';

/** The workers' admin URLs (their `postgres` database) when the run's server is a Citus coordinator. */
export function citusWorkerUrls(): string[] {
  return (process.env.TEST_CITUS_WORKER_URLS ?? '').split(',').filter(Boolean);
}

export const onCitus = (): boolean => citusWorkerUrls().length > 0;

/** Shards per distributed table in test databases (the lane's 8: fewer tasks per query on two cores). */
export const TEST_SHARD_COUNT = Number(process.env.TEST_CITUS_SHARD_COUNT ?? 8);

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `sql` on `database`, after ending the other sessions of that database (Citus's maintenance daemon). */
async function aloneOn(adminUrl: string, database: string, sql: string): Promise<void> {
  await withClient(adminUrl, async (c) => {
    for (let attempt = 1; ; attempt++) {
      await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
      try {
        await c.query(sql);
        return;
      } catch (err) {
        // 55006 object_in_use: a session came back between the two statements.
        if ((err as { code?: string }).code !== '55006' || attempt >= 5) throw err;
      }
    }
  });
}

/** The admin URLs of every node, coordinator first. */
const nodes = (adminUrl: string): string[] => [adminUrl, ...citusWorkerUrls()];

/**
 * Creates database `name` (empty, or a copy of `template`) on the run's server: on every node of a
 * Citus cluster, with the extension and the workers registered when it is not a copy.
 */
export async function createTestDatabaseOn(
  adminUrl: string,
  name: string,
  opts: { template?: string; /** CREATE DATABASE options (`template template0 lc_ctype 'C'`) for an empty one. */ options?: string } = {},
): Promise<void> {
  const create = (node: string) =>
    opts.options
      ? withClient(node, async (c) => void (await c.query(`create database ${pg.escapeIdentifier(name)} ${opts.options}`)))
      : ensureDatabase(node, name);
  if (!onCitus()) {
    if (opts.template) {
      await withClient(adminUrl, (c) => c.query(`create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(opts.template!)}`));
    } else {
      await create(adminUrl);
    }
    return;
  }
  const all = nodes(adminUrl);
  if (opts.template) {
    for (const node of all) await aloneOn(node, opts.template, `create database ${pg.escapeIdentifier(name)} template ${pg.escapeIdentifier(opts.template)}`);
    return;
  }
  for (const node of all) {
    await create(node);
    await withClient(databaseUrl(node, name), (c) => c.query('create extension if not exists citus'));
  }
  await withClient(databaseUrl(adminUrl, name), async (c) => {
    const { hostname, port } = new URL(adminUrl);
    await c.query('select citus_set_coordinator_host($1, $2)', [hostname, Number(port || 5432)]);
    for (const worker of citusWorkerUrls()) {
      const w = new URL(worker);
      await c.query('select citus_add_node($1, $2)', [w.hostname, Number(w.port || 5432)]);
    }
  });
}

/** Renames a database on every node (lakeWorld.ts builds a template under another name first). */
export async function renameTestDatabase(adminUrl: string, from: string, to: string): Promise<void> {
  const sql = `alter database ${pg.escapeIdentifier(from)} rename to ${pg.escapeIdentifier(to)}`;
  if (!onCitus()) return withClient(adminUrl, async (c) => void (await c.query(sql)));
  for (const node of nodes(adminUrl)) await aloneOn(node, from, sql);
}

export async function dropTestDatabase(adminUrl: string, name: string): Promise<void> {
  for (const node of onCitus() ? nodes(adminUrl) : [adminUrl]) await dropDatabase(node, name);
}

/**
 * Migrates a test database; on Citus also lays the lake out (`enrich distribute`), which on a clone
 * of a laid-out template only restores the database-level setting a copy does not carry.
 */
export async function prepareTestDatabase(knex: Knex): Promise<void> {
  await migrateLatest(knex);
  if (onCitus()) await applyDistributedLayout(knex, { shardCount: TEST_SHARD_COUNT });
}

/** The same for a database given by URL (a clone: settings only). */
export async function prepareTestDatabaseAt(url: string): Promise<void> {
  if (!onCitus()) return;
  const knex = createKnex(url, 1);
  try {
    await prepareTestDatabase(knex);
  } finally {
    await knex.destroy();
  }
}
