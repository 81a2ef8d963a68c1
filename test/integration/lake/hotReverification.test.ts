/**
 * A re-verification of an unchanged person (the refresh's and realtime's usual write: only
 * `fetched_at` moves) is a HOT update of its persons row: a new version on the same page and no
 * new entry in any of the table's ~20 indexes (migration 20261206000100: no index holds
 * `fetched_at`, and pages keep room for new versions). Counted by PostgreSQL itself for the test's
 * own transaction (pg_stat_get_xact_tuples_*), so other files' writes cannot change the figures.
 * The refresh gauge that used to need an index on `fetched_at` reads the queue instead: checked
 * here on a lake of the test's own.
 */
import type { Knex } from 'knex';
import { supportsLz4 } from '../../../src/db/migrations/20261206000100_hot_reverification';
import { queueStats } from '../../../src/db/repositories/refreshQueue';
import { writeRecords } from '../../../src/domain/lake/write/writer';
import type { CompanyRecord, PersonRecord } from '../../../src/model/records';
import { onCitus } from '../../helpers/clusterDatabase';
import { companyRecord, personRecord } from '../../helpers/lakeRecords';
import { useLakeWorld } from '../../helpers/lakeWorld';

const lake = useLakeWorld();

async function updateCounters(trx: Knex.Transaction, table: string): Promise<{ updated: number; hot: number }> {
  const { rows } = await trx.raw(
    `select pg_stat_get_xact_tuples_updated(?::regclass)::int as updated, pg_stat_get_xact_tuples_hot_updated(?::regclass)::int as hot`,
    [table, table],
  );
  return rows[0];
}

/**
 * The rows of `table` that `write` updated, and how many of them HOT. PostgreSQL 15's xact counters also
 * hold the connection's earlier transactions until it reports them while idle (never inside a
 * transaction block), hence the difference within one transaction.
 */
async function updates(db: Knex, table: string, write: (trx: Knex.Transaction) => Promise<unknown>): Promise<{ updated: number; hot: number }> {
  return db.transaction(async (trx) => {
    const before = await updateCounters(trx, table);
    await write(trx);
    const after = await updateCounters(trx, table);
    return { updated: after.updated - before.updated, hot: after.hot - before.hot };
  });
}

/**
 * One record of each table page the records were loaded into. The room a page keeps (fillfactor)
 * holds about one new version of its rows; a second one fits only once PostgreSQL has pruned the
 * first's dead version, which waits for every snapshot of the database older than it (any other
 * connection's): so one record a page, re-verified together, whatever else runs.
 */
async function onePerPage<R extends { id: string }>(table: 'persons' | 'companies', records: R[]): Promise<R[]> {
  const { rows } = await lake.h.knex.raw(`select id, (ctid::text::point)[0]::int as page from ${table} where id = any(?::uuid[])`, [records.map((r) => r.id)]);
  const firstOfPage = new Map<number, string>();
  for (const row of rows as { id: string; page: number }[]) if (!firstOfPage.has(row.page)) firstOfPage.set(row.page, row.id);
  const ids = new Set(firstOfPage.values());
  return records.filter((r) => ids.has(r.id));
}

/** Re-verifies one record of each page (onePerPage; at least two) at a new fetched_at, in one transaction. */
async function reverifyOnePerPage<R extends PersonRecord | CompanyRecord>(table: 'persons' | 'companies', kind: 'person' | 'company', records: R[]) {
  const picked = await onePerPage(table, records);
  expect(picked.length).toBeGreaterThan(1);
  const counts = await updates(lake.h.knex, table, (trx) =>
    writeRecords(trx, kind, picked.map((r) => ({ ...r, fetched_at: '2026-11-20T09:30:00.000Z' })) as never),
  );
  return { picked, counts };
}

// The counters are the coordinator's; on the distributed layout the rows live in the workers' shards.
(onCitus() ? describe.skip : describe)('re-verifying an unchanged record', () => {
  it('is a HOT update: the persons row moves on its page, no index is written', async () => {
    const records = Array.from({ length: 60 }, (_, i) => personRecord({ fetched_at: `2026-10-0${1 + (i % 9)}T08:00:00.000Z` }));
    await lake.addPersons(...records);
    const { picked, counts } = await reverifyOnePerPage('persons', 'person', records);
    expect(counts).toEqual({ updated: picked.length, hot: picked.length });
    const stored = await lake.h.knex('persons').whereIn('id', picked.map((r) => r.id)).pluck('fetched_at');
    expect(stored.map((d: Date) => d.toISOString())).toEqual(picked.map(() => '2026-11-20T09:30:00.000Z'));
  });

  it('so is a company re-verification', async () => {
    const records = Array.from({ length: 20 }, () => companyRecord({ fetched_at: '2026-10-01T08:00:00.000Z' }));
    await lake.addCompanies(...records);
    const { picked, counts } = await reverifyOnePerPage('companies', 'company', records);
    expect(counts).toEqual({ updated: picked.length, hot: picked.length });
  });

  it('a changed record is still written in full (not HOT: its indexed columns move)', async () => {
    const [record] = [personRecord({ fetched_at: '2026-10-01T08:00:00.000Z' })];
    await lake.addPersons(record!);
    const counts = await updates(lake.h.knex, 'persons', (trx) =>
      writeRecords(trx, 'person', [{ ...record!, full_name: 'Someone Else Entirely', fetched_at: '2026-11-20T09:30:00.000Z' }]),
    );
    expect(counts.updated).toBe(1);
    expect(counts.hot).toBe(0);
  });
});

describe('the refresh gauge of the oldest check', () => {
  it('follows the queue: the oldest fetched_at until that record is re-verified, then the next', async () => {
    const oldest = personRecord({ fetched_at: '2020-01-02T03:04:05.000Z' });
    const next = personRecord({ fetched_at: '2020-02-03T04:05:06.000Z' });
    await lake.addPersons(oldest, next);
    const before = await queueStats(lake.h.knex, 'person', new Date());
    expect(before.oldestFetchedAt?.toISOString()).toBe('2020-01-02T03:04:05.000Z');
    await writeRecords(lake.h.knex, 'person', [{ ...oldest, fetched_at: '2026-11-20T09:30:00.000Z' }]);
    const after = await queueStats(lake.h.knex, 'person', new Date());
    expect(after.oldestFetchedAt?.toISOString()).toBe('2020-02-03T04:05:06.000Z');
  });
});

describe('the stored record text', () => {
  it('is compressed with lz4 where the server has it (the embedded one has not: pglz)', async () => {
    const lz4 = await supportsLz4(lake.h.knex);
    // Big enough to be compressed at all (past ~2 KB a row).
    const record = personRecord({ skills: Array.from({ length: 300 }, (_, i) => ({ name: `Skill number ${i} of a long list`, endorsementsCount: i, passedSkillAssessment: false })) });
    await lake.addPersons(record);
    const { rows } = await lake.h.knex.raw(
      `select pg_column_compression(record) as method, (select attcompression from pg_attribute where attrelid = 'persons'::regclass and attname = 'record') as setting
       from persons where id = ?`,
      [record.id],
    );
    expect(rows[0]).toEqual(lz4 ? { method: 'lz4', setting: 'l' } : { method: 'pglz', setting: '' });
  });
});
