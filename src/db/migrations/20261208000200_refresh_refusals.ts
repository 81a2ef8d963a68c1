import type { Knex } from 'knex';

/**
 * A refresh queue row remembers when and why the lake refused the live source's copy of its record
 * (issue 32, row 7): a record the database cannot store (text it cannot hold, a value beyond a
 * column) is set aside with a short reason, the rest of its batch written, and the row goes to the
 * back of the queue, to be asked again on its own schedule (db/repositories/refreshQueue.ts
 * markRefused). The mark stands while `refused_at >= checked_at`: a later write of the record moves
 * `checked_at` past it, so nothing has to clear it. Adding nullable columns without a default
 * rewrites nothing; one DDL statement per call (CONVENTIONS: Citus).
 */
const UP = [
  'alter table person_refresh add column if not exists refused_at timestamptz',
  'alter table person_refresh add column if not exists refused_reason text',
  'alter table company_refresh add column if not exists refused_at timestamptz',
  'alter table company_refresh add column if not exists refused_reason text',
];

const DOWN = [
  'alter table company_refresh drop column if exists refused_reason',
  'alter table company_refresh drop column if exists refused_at',
  'alter table person_refresh drop column if exists refused_reason',
  'alter table person_refresh drop column if exists refused_at',
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
