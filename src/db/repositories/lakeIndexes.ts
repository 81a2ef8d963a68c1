/**
 * The secondary indexes of a lake kind's tables, set aside for an initial load and built again
 * after it (`enrich import --initial-load`). Building a btree or GIN index once over the loaded rows
 * costs a fraction of maintaining it row by row; the unique indexes and primary keys stay, since the
 * writer's upsert and its lookups of the copies a record replaces rely on them.
 *
 * The definitions are read from the catalog (pg_get_indexdef), so what is built again is exactly
 * what the migrations made; everything happens in the caller's transaction, so a failure or a crash
 * anywhere leaves the indexes as they were (and nothing imported).
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';

const TABLES: Record<LakeKind, string[]> = {
  person: ['persons', 'person_positions', 'person_educations', 'person_refresh'],
  company: ['companies', 'company_refresh'],
};

/**
 * Locks the kind's tables until the transaction ends (readers too: the indexes they would use are
 * about to go) and, when they hold no row, answers their secondary indexes (neither primary nor
 * unique nor behind a constraint) with their definitions; undefined when the lake holds records.
 */
async function lockEmptyLake(trx: Knex.Transaction, kind: LakeKind): Promise<{ name: string; definition: string; statistics: string[] }[] | undefined> {
  const tables = TABLES[kind];
  await trx.raw(`lock table ${tables.join(', ')} in access exclusive mode`);
  const { rows: emptiness } = await trx.raw<{ rows: { empty: boolean }[] }>(`select not exists (select 1 from ${tables[0]}) as empty`);
  if (!emptiness[0].empty) return undefined;
  // An index column's own statistics target (ALTER INDEX ... SET STATISTICS: pg_get_indexdef does
  // not carry it; migration 20261211000300 keeps a column without statistics) is set again after.
  const { rows } = await trx.raw<{ rows: { name: string; definition: string; statistics: string[] }[] }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition,
       array(select format('alter index %s alter column %s set statistics %s', i.indexrelid::regclass, a.attnum, a.attstattarget)
             from pg_attribute a where a.attrelid = i.indexrelid and a.attnum > 0 and a.attstattarget >= 0 order by a.attnum) as statistics
     from pg_index i
     where i.indrelid = any(?::regclass[]) and not i.indisunique and not i.indisprimary
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
     order by i.indexrelid`,
    [tables],
  );
  return rows;
}

/**
 * For an initial load into an empty lake: locks the kind's tables against every other session until
 * the transaction ends (readers too: the indexes they would use are gone) and, when they hold no
 * row, drops their secondary indexes and returns the function that builds them again. Undefined
 * when the lake already holds records of the kind (nothing dropped).
 */
export async function setAsideSecondaryIndexes(trx: Knex.Transaction, kind: LakeKind): Promise<(() => Promise<void>) | undefined> {
  const rows = await lockEmptyLake(trx, kind);
  if (!rows) return undefined;
  for (const index of rows) await trx.raw(`drop index ${index.name}`);
  return async () => {
    // More memory for the sorts of the builds than a default server gives one statement.
    await trx.raw("set local maintenance_work_mem = '256MB'");
    for (const index of rows) {
      await trx.raw(index.definition);
      for (const statement of index.statistics) await trx.raw(statement);
    }
  };
}

/**
 * ANALYZE of the kind's tables after a load, by a statement of its own once the load's transaction
 * has committed: on Citus, a transaction whose writes reached the reference table `companies`
 * through local execution cannot ANALYZE it ("local execution has accessed a placement").
 */
export async function analyzeLake(db: Knex, kind: LakeKind): Promise<void> {
  await db.raw(`analyze ${TABLES[kind].join(', ')}`);
}

/** What a resumable initial load set aside: built again, exactly as the catalog had them, at its end. */
export interface SetAside {
  /** statistics: the columns' own statistics targets (absent in a checkpoint of an earlier version). */
  indexes: { name: string; definition: string; statistics?: string[] }[];
  foreignKeys: { table: string; name: string; definition: string }[];
}

/**
 * For a resumable initial load (importer.ts), in the caller's transaction: locks the kind's tables
 * until it ends, and when they hold no row, drops their secondary indexes and the foreign keys of
 * their index and queue tables, returning their definitions (the caller stores them with its
 * checkpoint, so a load resumed after a crash still knows what to build). Undefined when the lake
 * already holds records of the kind (nothing dropped). The primary keys and unique indexes stay:
 * they find a record repeated further down the file.
 */
export async function setAsideForLoad(trx: Knex.Transaction, kind: LakeKind): Promise<SetAside | undefined> {
  const tables = TABLES[kind];
  const indexes = await lockEmptyLake(trx, kind);
  if (!indexes) return undefined;
  const { rows: foreignKeys } = await trx.raw<{ rows: { table: string; name: string; definition: string }[] }>(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
     from pg_constraint where contype = 'f' and conrelid = any(?::regclass[]) order by oid`,
    [tables],
  );
  for (const fk of foreignKeys) await trx.raw(`alter table ${fk.table} drop constraint ??`, [fk.name]);
  for (const index of indexes) await trx.raw(`drop index ${index.name}`);
  return { indexes, foreignKeys };
}

/**
 * Builds again what setAsideForLoad dropped, skipping what already exists (a load resumed after a
 * crash during this step builds the rest), then ANALYZE. Each index and key in a statement of its own.
 */
export async function rebuildSetAside(db: Knex, kind: LakeKind, set: SetAside): Promise<void> {
  for (const index of set.indexes) {
    const { rows } = await db.raw<{ rows: { present: boolean }[] }>('select to_regclass(?) is not null as present', [index.name]);
    if (rows[0].present) continue;
    await db.transaction(async (trx) => {
      // More memory for the sort of the build than a default server gives one statement.
      await trx.raw("set local maintenance_work_mem = '256MB'");
      await trx.raw(index.definition);
      for (const statement of index.statistics ?? []) await trx.raw(statement);
    });
  }
  for (const fk of set.foreignKeys) {
    const { rows } = await db.raw<{ rows: { present: boolean }[] }>(
      'select exists (select 1 from pg_constraint where conname = ? and conrelid = ?::regclass) as present',
      [fk.name, fk.table],
    );
    if (rows[0].present) continue;
    await db.raw(`alter table ${fk.table} add constraint ?? ${fk.definition}`, [fk.name]);
  }
  await analyzeLake(db, kind);
}
