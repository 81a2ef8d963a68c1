/**
 * A lake's tables as sorted text rows, to compare two loads of the same file whole (the import
 * tests: a resumed or deduplicated load must leave exactly what a plain one leaves).
 */
import type { Knex } from 'knex';

/** Each query's rows as text (`t::text`), sorted: one entry per name of `queries`. */
export async function lakeSnapshot(db: Knex, queries: Record<string, string>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, sql] of Object.entries(queries)) {
    const { rows } = await db.raw<{ rows: { row: string }[] }>(`select t::text as row from (${sql}) t order by 1`);
    out[name] = rows.map((r) => r.row);
  }
  return out;
}

/** Empties the person side of the lake (and the suppressions), for the next load. */
export async function clearPersonLake(db: Knex): Promise<void> {
  await db.raw('truncate persons, person_positions, person_educations, person_refresh, change_log, suppressions cascade');
}
