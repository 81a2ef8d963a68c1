/**
 * Identifiers of records that exist, so that generated "valid" requests reach real data and not
 * only 404s. One function, `identifierPool(knex, seed)`:
 *
 * 1. seeds a small deterministic world into the data lake when the lake loader is present
 *    (`seedLake(knex, {persons, companies, seed})` from src/world/seed.ts); before that lands
 *    this step is skipped;
 * 2. reads identifiers back from whatever the database holds, by column name, so it keeps working
 *    as tables are added: a table whose name mentions people/persons feeds `person.*`, companies feeds
 *    `company.*`, monitors feeds `monitor.id`, and any `school`/`school_name` column feeds `school`.
 *
 * Keys: person.{id,username,network_url}, company.{id,username,network_url,company_id,name},
 * monitor.id, school. Values are strings; callers check them against the parameter schema.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../src/db/knex';
import { databaseUrl } from '../../src/db/embedded';
import { createTestDatabaseOn, dropTestDatabase, prepareTestDatabase } from './clusterDatabase';

export type IdentifierPool = Record<string, string[]>;

const PER_COLUMN = 25;
const COLUMNS = ['id', 'username', 'network_url', 'company_id', 'name', 'school', 'school_name', 'record'];

/** Seeds the lake when the loader exists; returns whether it did. */
async function seedWorld(knex: Knex, seed: number): Promise<boolean> {
  let loader: { seedLake?: (k: Knex, o: { persons: number; companies: number; seed: number }) => Promise<unknown> };
  try {
    // Resolved at run time: the lake loader lands with the data-lake issue.
    loader = require('../../src/world/seed');
  } catch {
    return false;
  }
  if (!loader.seedLake) return false;
  await loader.seedLake(knex, { persons: 120, companies: 30, seed });
  return true;
}

/**
 * A migrated database of its own next to the run's database (same server), so a seeded world never
 * changes what other test files running at the same time see.
 */
export async function isolatedDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ADMIN_DATABASE_URL is not set: run tests through jest (globalSetup sets it)');
  const name = `${process.env.TEST_DATABASE_NAME ?? 'enrich_test'}_${label}_${randomBytes(3).toString('hex')}`.slice(0, 63);
  await createTestDatabaseOn(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  const knex = createKnex(url, 1);
  try {
    // Migrated; on a Citus cluster also laid out (clusterDatabase.ts).
    await prepareTestDatabase(knex);
  } finally {
    await knex.destroy();
  }
  return { url, drop: () => dropTestDatabase(adminUrl, name) };
}

function areaOf(table: string): 'person' | 'company' | 'monitor' | undefined {
  if (/monitor/.test(table) && !/event|deliver/.test(table)) return 'monitor';
  if (/compan/.test(table)) return 'company';
  if (/person|people|profile/.test(table)) return 'person';
  return undefined;
}

export async function identifierPool(knex: Knex, seed: number): Promise<{ values: IdentifierPool; seededLake: boolean }> {
  const seeded = await seedWorld(knex, seed).catch((err: Error) => {
    throw new Error(`identifierPool: seeding the lake failed: ${err.message}`);
  });
  const rows = (await knex('information_schema.columns')
    .select('table_name', 'column_name')
    .where('table_schema', knex.raw('current_schema()'))
    .whereIn('column_name', COLUMNS)) as { table_name: string; column_name: string }[];
  const pool: IdentifierPool = {};
  // Profile URLs live inside the stored record (a jsonb `record` column) rather than in a column.
  for (const table of new Set(rows.filter((r) => r.column_name === 'record').map((r) => r.table_name))) {
    const area = areaOf(table);
    if (area !== 'person' && area !== 'company') continue;
    const urls = (await knex(table).select(knex.raw("record->>'network_url' as url")).whereRaw("record->>'network_url' is not null").orderBy('id').limit(PER_COLUMN)) as { url: string }[];
    (pool[`${area}.network_url`] ??= []).push(...urls.map((u) => u.url));
  }
  for (const { table_name: table, column_name: column } of rows) {
    if (column === 'record') continue;
    const area = areaOf(table);
    const key = column.startsWith('school') ? 'school' : area ? `${area}.${column}` : undefined;
    if (!key) continue;
    const values = (await knex(table).distinct(column).whereNotNull(column).orderBy(column).limit(PER_COLUMN).pluck(column)) as unknown[];
    const list = (pool[key] ??= []);
    for (const v of values) if (typeof v === 'string' || typeof v === 'number') list.push(String(v));
  }
  return { values: pool, seededLake: seeded };
}
