/**
 * A lake's tables as sorted text rows, to compare two loads of the same file whole (the import
 * tests: a resumed or deduplicated load must leave exactly what a plain one leaves).
 */
import type { Knex } from 'knex';
import { SERVED_RECORD } from './lakeRecords';

/** The person side of the lake, as a load writes it (what two loads of one file must agree on). */
export const PERSON_LAKE: Record<string, string> = {
  persons: `select id, username, network_id, network_urn, full_name, current_title, current_company, current_company_id,
      current_company_industry, seniority, geo_country_code, geo_city, current_started_on, fetched_at, skills,
      previous_company_id, previous_company, changed_employer, ${SERVED_RECORD} as record from persons`,
  person_positions: 'select * from person_positions',
  person_educations: 'select * from person_educations',
  person_refresh: 'select person_id, checked_at, lease_token, lease_until, watchers from person_refresh',
  change_log: 'select kind, subject_id, event, diff, origin, redacted_at from change_log',
  suppressions: 'select digest, kind from suppressions',
};

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
