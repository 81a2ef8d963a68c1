/**
 * npx tsx bench/lakeBuildCheck.ts --persons=2000 — builds the scale lake of that size twice, by
 * seedLake and by the import (bench/lakeImport.ts), in two throwaway databases, and prints each
 * table's count and a digest of its rows without ids and timestamps (both builds must agree), then
 * drops the databases. Exits 1 when they differ. Needs DATABASE_URL (the server the throwaway
 * databases are made and dropped on).
 */
import { createKnex, migrateLatest } from '../src/db/knex';
import { benchDatabaseUrl, ensureLake, intArg, type LakeBuildMode } from './lib';

const TABLES = ['persons', 'person_positions', 'person_educations', 'person_refresh', 'companies', 'company_refresh', 'change_log'];

/** Keys that differ between two builds of one world: generated ids, and the clock. */
const VOLATILE = /(^id$|_id$|_at$|^lease_token$|^seq$)/;

async function digests(build: LakeBuildMode, persons: number): Promise<Record<string, string>> {
  const name = `enrich_scale_check_${build}`;
  const db = await benchDatabaseUrl(name);
  const knex = createKnex(db.url);
  const out: Record<string, string> = {};
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, Math.round(persons / 10), build);
    for (const table of TABLES) {
      const { rows: cols } = await knex.raw<{ rows: { c: string }[] }>(
        `select column_name as c from information_schema.columns where table_name = ? and table_schema = current_schema()`, [table]);
      const drop = cols.map((r) => r.c).filter((c) => VOLATILE.test(c));
      const minus = drop.map((c) => ` - '${c}'`).join('');
      // The record's own id (persons.record->'id') is a generated id too.
      const record = table === 'persons' || table === 'companies' ? ` || jsonb_build_object('record', (to_jsonb(t)->'record') - 'id')` : '';
      const { rows } = await knex.raw<{ rows: { n: string; d: string }[] }>(
        `select count(*) as n, md5(coalesce(string_agg(r, '|' order by r), '')) as d from (select ((to_jsonb(t)${minus})${record})::text as r from ${table} t) x`);
      out[table] = `${rows[0]!.n} ${rows[0]!.d}`;
    }
  } finally {
    await knex.destroy();
    const admin = createKnex(process.env.DATABASE_URL!);
    await admin.raw(`drop database if exists ${name} with (force)`);
    await admin.destroy();
  }
  return out;
}

async function main() {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL: the PostgreSQL server to build the two throwaway lakes on');
  const persons = intArg('persons', 2000);
  const seed = await digests('seed', persons);
  const imported = await digests('import', persons);
  let same = true;
  for (const table of TABLES) {
    const ok = seed[table] === imported[table];
    same &&= ok;
    process.stdout.write(`${table.padEnd(20)} seed ${seed[table]}  import ${imported[table]}  ${ok ? 'same' : 'DIFFERENT'}\n`);
  }
  process.exit(same ? 0 : 1);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
