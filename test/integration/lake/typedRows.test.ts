/**
 * The typed rows of the initial load (domain/lake/write/rows.ts, written by COPY through
 * writer.ts loadRecords) against the SQL rules they restate (the writer's upsert: lake_position_facts,
 * lake_skills, lake_bigint, lake_date; the rules the queries still use, lake_changed_employer
 * among them): a generated world, and records shaped to tell the rules apart, written both ways
 * into the same lake, give the same rows of persons, person_positions, person_educations and
 * person_refresh, column for column.
 */
import type { Knex } from 'knex';
import { createWorld } from '../../../src/world';
import { loadRecords, writeRecords } from '../../../src/domain/lake/write/writer';
import { personRows } from '../../../src/domain/lake/write/rows';
import type { PersonRecord } from '../../../src/model/records';
import { useLakeWorld } from '../../helpers/lakeWorld';
import { personRecord } from '../../helpers/lakeRecords';

const lw = useLakeWorld();

const TABLES: Record<string, string> = {
  persons: `select id, username, network_id, network_urn, full_name, current_title, current_company, current_company_id,
      current_company_industry, seniority, geo_country_code, geo_city, current_started_on, fetched_at,
      array(select s from unnest(skills) s order by s collate "C") as skills, previous_company_id, previous_company,
      changed_employer, record::text as record, seniority_rank, title_words, search_words from persons`,
  person_positions: 'select * from person_positions',
  person_educations: 'select * from person_educations',
  person_refresh: 'select person_id, checked_at, lease_token, lease_until, watchers from person_refresh',
};

type Position = PersonRecord['positions'][number];
const position = (base: Position, more: Partial<Position>): Position => ({ ...base, ...more });

/** Records whose values sit on the edges of the rules. */
function edgeRecords(): PersonRecord[] {
  const r = personRecord();
  const p = r.positions[0] ?? ({
    title: 'Engineer', companyName: 'Acme', companyId: '1', companyUsername: 'acme', companyIndustry: 'Software',
    location: 'Berlin', companyURL: null, companyLogo: null, companyStaffCountRange: '11-50', locationType: null,
    employmentType: null, isCurrent: true, startYear: 2020, startMonth: 3, endYear: null, endMonth: null,
  } as Position);
  const skill = (name: string) => ({ name, endorsementsCount: 1, passedSkillAssessment: false });
  const school = (schoolName: string) => ({ ...(r.educations[0] ?? {}), schoolName } as PersonRecord['educations'][number]);
  return [
    personRecord({ positions: [], educations: [], skills: [] }),
    personRecord({
      geo_country_code: 'de',
      skills: [skill('TypeScript'), skill('typescript'), skill(''), skill('Go'), skill('a"b\\c\td')],
      educations: [school(''), school('Tab\there'), school('Back\\slash "quoted"')],
      positions: [
        position(p, { isCurrent: true, companyId: '10', companyName: 'ACME', startYear: 99, startMonth: 0 }),
        position(p, { isCurrent: true, companyId: '', companyName: 'Other', startYear: 2019, startMonth: 13 as never }),
        position(p, { isCurrent: false, companyId: '10', startYear: 2018, endYear: 2019, endMonth: 5 }),
        position(p, { isCurrent: false, companyId: '0020', companyName: 'B', startYear: 2017, endYear: 0, endMonth: null }),
        position(p, { isCurrent: false, companyId: '20', companyName: 'B', startYear: 2015, endYear: 10000 }),
        position(p, { isCurrent: false, companyId: '1234567890123456789', startYear: 2012 }),
        position(p, { isCurrent: false, companyId: 'abc', startYear: 2011, endYear: 2011, endMonth: 12 }),
      ],
    }),
    // A job change decided by names (one ID missing), equal but for case; and by different names.
    personRecord({ positions: [position(p, { isCurrent: true, companyId: '', companyName: 'ACME' }), position(p, { isCurrent: false, companyId: '5', companyName: 'acme', startYear: 2001 })] }),
    personRecord({ positions: [position(p, { isCurrent: true, companyId: '', companyName: 'Initech' }), position(p, { isCurrent: false, companyId: '5', companyName: 'Acme', startYear: 2001 })] }),
    // Text that is not ASCII where the rules map case: the SQL rules decide those columns.
    personRecord({
      geo_country_code: 'ßé',
      skills: [skill('ÉCOLE'), skill('école'), skill('Straße')],
      positions: [position(p, { isCurrent: true, companyId: '', companyName: 'ÖL AG' }), position(p, { isCurrent: false, companyId: '5', companyName: 'öl ag', startYear: 2001 })],
    }),
    // Only past positions; the first job; a new title at the same employer.
    personRecord({ positions: [position(p, { isCurrent: false, companyId: '7' }), position(p, { isCurrent: false, companyId: '8', startYear: 2001 }), position(p, { isCurrent: false, companyId: '7', startYear: 2000 })] }),
    personRecord({ positions: [position(p, { isCurrent: true, companyId: '7' })] }),
    personRecord({ positions: [position(p, { isCurrent: true, companyId: '7', title: 'Lead' }), position(p, { isCurrent: false, companyId: '7', startYear: 2001 })] }),
  ];
}

async function snapshot(db: Knex): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, sql] of Object.entries(TABLES)) {
    const { rows } = await db.raw<{ rows: { row: string }[] }>(`select t::text as row from (${sql}) t order by 1`);
    out[table] = rows.map((r) => r.row);
  }
  return out;
}

/** Empties the person tables (and, on the distributed layout, the identifier table that follows them). */
const clear = async (db: Knex) => {
  await db.raw('truncate persons, person_positions, person_educations, person_refresh cascade');
  if ((await db.raw<{ rows: { present: boolean }[] }>("select to_regclass('lake_identifiers') is not null as present")).rows[0]!.present) {
    await db.raw('truncate lake_identifiers');
  }
};

describe('typed rows of the initial load', () => {
  it('a generated world and edge records: the same rows by COPY as by the SQL upsert', async () => {
    const world = createWorld({ persons: 1500, companies: 150, seed: 22, asOf: new Date('2026-11-01T00:00:00Z') });
    const records: PersonRecord[] = [...Array.from({ length: world.persons }, (_, i) => world.person(i) as PersonRecord), ...edgeRecords()];
    const db = lw.h.knex;
    await clear(db);
    for (let i = 0; i < records.length; i += 500) await writeRecords(db, 'person', records.slice(i, i + 500));
    const bySql = await snapshot(db);
    await clear(db);
    for (let i = 0; i < records.length; i += 500) {
      const batch = records.slice(i, i + 500);
      // Every record derivable, so the batch really goes by COPY (loadRecords falls back otherwise).
      expect(batch.every((r) => personRows(r, r.username.toLowerCase(), JSON.stringify(r)) !== undefined)).toBe(true);
      await db.transaction((trx) => loadRecords(trx, 'person', batch));
    }
    const byCopy = await snapshot(db);
    expect(bySql.persons).toHaveLength(records.length);
    expect(bySql.person_positions.length).toBeGreaterThan(records.length);
    for (const table of Object.keys(TABLES)) expect({ table, rows: byCopy[table] }).toEqual({ table, rows: bySql[table] });
    // The rules did tell something apart: job changes, past employers, non-ASCII fixed by SQL.
    const facts = await db.raw<{ rows: { changed: string; past: string }[] }>(
      'select (select count(*) from persons where changed_employer) as changed, (select count(*) from person_positions where latest_past) as past',
    );
    expect(Number(facts.rows[0].changed)).toBeGreaterThan(0);
    expect(Number(facts.rows[0].past)).toBeGreaterThan(0);
  });

  it('a record already stored makes the batch go through the SQL upsert: replaced, its change logged', async () => {
    const db = lw.h.knex;
    await clear(db);
    const first = personRecord();
    await db.transaction((trx) => loadRecords(trx, 'person', [first]));
    const promoted = { ...first, current_title: `${first.current_title ?? 'Engineer'} (promoted)` };
    const other = personRecord();
    const outcome = await db.transaction((trx) => loadRecords(trx, 'person', [promoted, other]));
    expect(outcome).toMatchObject({ written: 2, changes: [expect.objectContaining({ event: 'person.title_changed' })] });
    const { rows } = await db.raw<{ rows: { record: PersonRecord }[] }>('select record from persons where id = ?', [first.id]);
    expect(rows[0].record.current_title).toBe(promoted.current_title);
  });
});
