/**
 * The trigram arm at the employers reads one GIN index over (current_company_id, the folded name's
 * trigrams) whose name column has no statistics (migration 20261211000300_match_employer_trigrams):
 * with statistics, pg_trgm's `%` was estimated at a handful of rows and the planner read every
 * similar name of the lake to keep the ones at the employer. Here: the column is kept without
 * statistics by the migration, by ANALYZE, and by an initial load's rebuild of the indexes (which
 * re-creates them from pg_get_indexdef, which does not carry a column's statistics target); and on
 * a lake where one employer is large and one name is common, the arm's plan puts the employer in an
 * index condition instead of filtering the similar names of every employer.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { databaseUrl } from '../../../src/db/embedded';
import { rebuildSetAside, setAsideForLoad, setAsideSecondaryIndexes } from '../../../src/db/repositories/lakeIndexes';
import { createTestDatabaseOn, dropTestDatabase, onCitus, prepareTestDatabase } from '../../helpers/clusterDatabase';

let adminUrl: string;
let dbName: string;
let db: Knex;

beforeAll(async () => {
  adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
  dbName = `${process.env.TEST_DATABASE_NAME ?? 'enrich_test'}_trgm_${randomBytes(3).toString('hex')}`.slice(0, 63);
  await createTestDatabaseOn(adminUrl, dbName);
  db = createKnex(databaseUrl(adminUrl, dbName), 2);
  await prepareTestDatabase(db);
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  if (dbName) await dropTestDatabase(adminUrl, dbName);
});

/** The statistics target of the index's name column (PostgreSQL 17+: null for the default). */
const target = async (k: Knex) =>
  (await k.raw<{ rows: { t: number | null }[] }>(
    "select attstattarget::int as t from pg_attribute where attrelid = 'persons_match_trgm'::regclass and attnum = 2",
  )).rows[0]!.t;
const hasStatistics = async (k: Knex) =>
  (await k.raw<{ rows: { n: number }[] }>("select count(*)::int as n from pg_statistic where starelid = 'persons_match_trgm'::regclass")).rows[0]!.n > 0;

/** Rolls back whatever fn did (the lake stays empty and indexed for the next test). */
async function rolledBack(fn: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
  const undo = new Error('roll back');
  await expect(db.transaction(async (trx) => {
    await fn(trx);
    throw undo;
  })).rejects.toBe(undo);
}

(onCitus() ? describe.skip : describe)('the trigram index of the employer arm', () => {
  it('has a name column without statistics, also after an initial load rebuilt the indexes', async () => {
    expect(await target(db)).toBe(0);
    await rolledBack(async (trx) => {
      const rebuild = (await setAsideSecondaryIndexes(trx, 'person'))!;
      expect(rebuild).toBeDefined();
      expect((await trx.raw("select to_regclass('persons_match_trgm') as r")).rows[0].r).toBeNull();
      await rebuild();
      expect(await target(trx)).toBe(0);
    });
    await rolledBack(async (trx) => {
      const set = (await setAsideForLoad(trx, 'person'))!;
      expect(set.indexes.find((i) => i.name === 'persons_match_trgm')?.statistics).toEqual(['alter index persons_match_trgm alter column 2 set statistics 0']);
      await rebuildSetAside(trx, 'person', set);
      expect(await target(trx)).toBe(0);
    });
  });

  it('puts the employer in the index condition, not in a filter of every similar name', async () => {
    // 3,000 persons named like "james smith 17", 600 of them at company 1; others elsewhere.
    await db.raw(`insert into persons (id, username, full_name, current_company_id, fetched_at, record)
      select gen_random_uuid(), 'trgm-' || i, 'James Smith ' || i, case when i % 5 = 0 then 1 else 1000 + i end, now(),
        json_build_object('full_name', 'James Smith ' || i)
      from generate_series(1, 3000) i`);
    await db.raw('analyze persons');
    expect(await hasStatistics(db)).toBe(false);
    const plan = await db.transaction(async (trx) => {
      await trx.raw('set local pg_trgm.similarity_threshold = 0.3');
      const { rows } = await trx.raw(
        "explain (format json) select id from persons where current_company_id = any(array[1, 7]::bigint[]) and lake_trgm_name(full_name) % 'jmaes smiht' order by similarity(lake_fold(full_name), 'jmaes smiht') desc, id limit 20",
      );
      return JSON.stringify(rows[0]['QUERY PLAN']);
    });
    // The employer is an index condition (of the GIN index, or of a staff index the bitmap meets).
    expect(plan).toMatch(/"Index Cond":"[^"]*current_company_id = ANY/);
    expect(plan).not.toMatch(/"Filter":"[^"]*current_company_id/);
  });
});
