/**
 * The lake's distributed layout on Citus (`enrich distribute`; docs/scale-out.md says why each
 * table goes where). Opt-in: it runs only on a database with the `citus` extension, after
 * `enrich migrate`, with the worker nodes already added (citus_add_node). Every step checks the
 * catalog first, so running it again does nothing more.
 *
 * - persons, person_positions, person_educations, person_refresh: hash-distributed by person id,
 *   co-located (a record, its index rows and its queue row live on one shard); person_staging,
 *   created here, with them: the writer stages a batch there so the shards parse it;
 * - lake_identifiers: created here, hash-distributed by the identifier's value, kept by the writer
 *   (db/repositories/lakeIdentifiers.ts); it enforces username uniqueness, which Citus cannot on
 *   persons (a unique constraint must include the distribution column);
 * - companies, company_refresh: reference tables (a copy on every node) for now;
 * - everything else (workspaces, keys, monitors, deliveries, usage, idempotency, suppressions,
 *   change log): local tables on the coordinator, untouched.
 */
import type { Knex } from 'knex';
import { UNIQUE_IDENTIFIERS, forgetIdentifierTable } from './repositories/lakeIdentifiers';

export class CitusMissing extends Error {
  constructor() {
    super("the citus extension is not installed in this database (create extension citus; see docs/scale-out.md)");
  }
}

const PERSON_TABLES = [
  { table: 'persons', column: 'id' },
  { table: 'person_positions', column: 'person_id' },
  { table: 'person_educations', column: 'person_id' },
  { table: 'person_refresh', column: 'person_id' },
  { table: 'person_staging', column: 'person_id' },
] as const;
const REFERENCE_TABLES = ['companies', 'company_refresh'] as const;

/** Foreign keys between lake tables: dropped before distributing (Citus refuses a key between a local and a distributed table), added back after. */
const FOREIGN_KEYS = [
  { table: 'person_positions', name: 'person_positions_person_id_fkey', sql: 'foreign key (person_id) references persons (id) on delete cascade' },
  { table: 'person_educations', name: 'person_educations_person_id_fkey', sql: 'foreign key (person_id) references persons (id) on delete cascade' },
  { table: 'person_refresh', name: 'person_refresh_person_id_fkey', sql: 'foreign key (person_id) references persons (id) on delete cascade' },
  { table: 'company_refresh', name: 'company_refresh_company_id_fkey', sql: 'foreign key (company_id) references companies (id) on delete cascade' },
] as const;

export interface LayoutReport {
  /** What this run did, in order; empty when the layout was already in place. */
  steps: string[];
  shardCount: number;
}

async function one<T>(db: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<T | undefined> {
  const { rows } = await db.raw<{ rows: T[] }>(sql, bindings);
  return rows[0];
}

async function partitionMethod(db: Knex, table: string): Promise<'h' | 'n' | undefined> {
  const row = await one<{ method: 'h' | 'n' }>(
    db,
    'select partmethod as method from pg_dist_partition where logicalrelid = to_regclass(?)',
    [table],
  );
  return row?.method;
}

export async function hasCitus(db: Knex): Promise<boolean> {
  return Boolean((await one<{ present: boolean }>(db, "select exists (select 1 from pg_extension where extname = 'citus') as present"))?.present);
}

/** Applies the layout; `shardCount` is used for tables distributed by this run (Citus's default: 32). */
export async function applyDistributedLayout(db: Knex, opts: { shardCount?: number } = {}): Promise<LayoutReport> {
  if (!(await hasCitus(db))) throw new CitusMissing();
  const steps: string[] = [];
  const shardCount = opts.shardCount ?? 32;
  const step = async (what: string, sql: string, bindings: Knex.RawBinding[] = []) => {
    await db.raw(sql, bindings);
    steps.push(what);
  };

  // SET LOCAL planner settings (people.ts WALK_IN_ORDER) reach the workers' transactions only with this.
  const database = (await one<{ name: string }>(db, 'select current_database() as name'))!.name;
  const setting = await one<{ value: string }>(
    db,
    `select s.setconfig::text as value from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase
     where d.datname = current_database() and s.setrole = 0`,
  );
  if (!setting?.value.includes('citus.propagate_set_commands=local')) {
    await step('citus.propagate_set_commands = local', `alter database ${quoteIdent(database)} set citus.propagate_set_commands = 'local'`);
    await db.raw("set citus.propagate_set_commands = 'local'");
  }

  // The lake's SQL functions run on the workers too (hit objects, search columns): distributed once.
  const functions = await db.raw<{ rows: { signature: string }[] }>(
    `select p.oid::regprocedure::text as signature from pg_proc p
     where p.pronamespace = 'public'::regnamespace and p.proname like 'lake\\_%'
       and not exists (select 1 from pg_dist_object o where o.classid = 'pg_proc'::regclass and o.objid = p.oid)
     order by 1`,
  );
  for (const f of functions.rows) await step(`function ${f.signature}`, 'select create_distributed_function(?)', [f.signature]);

  let createdIdentifiers = false;
  if (!(await one(db, "select 1 from pg_class where oid = to_regclass('lake_identifiers')"))) {
    await step(
      'create lake_identifiers',
      `create table lake_identifiers (
         value text not null,      -- the identifier as the lake stores it (normalized username, network_id, ...)
         kind text not null,       -- '<person|company>:<column>'
         subject_id uuid not null, -- the record's id
         primary key (value, kind, subject_id))`,
    );
    // One record per username (person, company) and company_id: the uniqueness persons cannot hold.
    await step(
      'unique identifiers',
      `create unique index lake_identifiers_unique on lake_identifiers (value, kind)
       where kind in (${UNIQUE_IDENTIFIERS.map((k) => `'${k}'`).join(', ')})`,
    );
    // The writer replaces a record's rows by its id.
    await step('identifiers by subject', 'create index lake_identifiers_subject on lake_identifiers (subject_id)');
    createdIdentifiers = true;
  }

  if (!(await one(db, "select 1 from pg_class where oid = to_regclass('person_staging')"))) {
    // The writer's batches, staged on the shards of their persons so that the JSON is parsed and the
    // rows derived there (staging.ts stageOnShards). Unlogged: rows live only inside the writer's
    // transaction, which deletes them before it commits; a crash loses nothing of the lake.
    await step(
      'create person_staging',
      'create unlogged table person_staging (person_id uuid not null, username text not null, doc text not null)',
    );
  }

  for (const fk of FOREIGN_KEYS) {
    const partitioned = await partitionMethod(db, fk.table);
    if (!partitioned && (await one(db, 'select 1 from pg_constraint where conname = ?', [fk.name]))) {
      await step(`drop ${fk.name}`, `alter table ${fk.table} drop constraint ${fk.name}`);
    }
  }
  if (await one(db, "select 1 from pg_constraint where conname = 'persons_username_key'")) {
    // Uniqueness moves to lake_identifiers; the takeover delete and bulk reads keep an index.
    await step('drop persons_username_key', 'alter table persons drop constraint persons_username_key');
    await step('index persons (username)', 'create index if not exists persons_username on persons (username)');
  }

  const distribute = async (table: string, sql: string, bindings: Knex.RawBinding[]) => {
    if (await partitionMethod(db, table)) return;
    await step(`distribute ${table}`, sql, bindings);
    // create_distributed_table copies the rows into the shards and leaves the local copy hidden.
    await db.raw('select truncate_local_data_after_distributing_table(?)', [table]);
  };
  for (const t of PERSON_TABLES) {
    await distribute(
      t.table,
      t.table === 'persons'
        ? "select create_distributed_table(?, ?, shard_count => ?, colocate_with => 'none')"
        : "select create_distributed_table(?, ?, colocate_with => 'persons')",
      t.table === 'persons' ? [t.table, t.column, shardCount] : [t.table, t.column],
    );
  }
  await distribute('lake_identifiers', "select create_distributed_table('lake_identifiers', 'value', shard_count => ?, colocate_with => 'none')", [shardCount]);
  for (const table of REFERENCE_TABLES) await distribute(table, 'select create_reference_table(?)', [table]);

  for (const fk of FOREIGN_KEYS) {
    if (!(await one(db, 'select 1 from pg_constraint where conname = ?', [fk.name]))) {
      await step(`add ${fk.name}`, `alter table ${fk.table} add constraint ${fk.name} ${fk.sql}`);
    }
  }

  if (createdIdentifiers) {
    // Existing records' identifiers, as the writer would have written them.
    for (const [kind, table, columns] of [
      ['person', 'persons', ['username', 'network_id', 'network_urn']],
      ['company', 'companies', ['username', 'company_id']],
    ] as const) {
      for (const column of columns) {
        await step(
          `identifiers ${kind}:${column}`,
          `insert into lake_identifiers (value, kind, subject_id)
           select ${column}::text, '${kind}:${column}', id from ${table} where ${column} is not null`,
        );
      }
    }
  }
  forgetIdentifierTable(db);
  return { steps, shardCount };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
