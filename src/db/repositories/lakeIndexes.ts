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
 * For an initial load into an empty lake: locks the kind's tables against every other session until
 * the transaction ends (readers too: the indexes they would use are gone) and, when they hold no
 * row, drops their secondary indexes and returns the function that builds them again. Undefined
 * when the lake already holds records of the kind (nothing dropped).
 */
export async function setAsideSecondaryIndexes(trx: Knex.Transaction, kind: LakeKind): Promise<(() => Promise<void>) | undefined> {
  const tables = TABLES[kind];
  await trx.raw(`lock table ${tables.join(', ')} in access exclusive mode`);
  const { rows: emptiness } = await trx.raw<{ rows: { empty: boolean }[] }>(`select not exists (select 1 from ${tables[0]}) as empty`);
  if (!emptiness[0].empty) return undefined;
  const { rows } = await trx.raw<{ rows: { name: string; definition: string }[] }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
     from pg_index i
     where i.indrelid = any(?::regclass[]) and not i.indisunique and not i.indisprimary
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
     order by i.indexrelid`,
    [tables],
  );
  for (const index of rows) await trx.raw(`drop index ${index.name}`);
  return async () => {
    // More memory for the sorts of the builds than a default server gives one statement.
    await trx.raw("set local maintenance_work_mem = '256MB'");
    for (const index of rows) await trx.raw(index.definition);
    await trx.raw(`analyze ${tables.join(', ')}`);
  };
}
