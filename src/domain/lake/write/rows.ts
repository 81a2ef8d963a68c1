/**
 * The lake columns of a person, derived in TypeScript from the record Node has already parsed, as
 * rows of PostgreSQL's COPY text format for `persons`, `person_positions`, `person_educations` and
 * `person_refresh`: what the writer's upsert (db/repositories/personRecords.ts upsertPersons)
 * derives in SQL from the same record, value for value, so the initial load (importer.ts) can send
 * typed rows straight into the final tables instead of a jsonb staging pass. Pure.
 *
 * The SQL rules it restates, and where they live:
 * - lake_bigint, lake_date (20261121000300_lake): company IDs `^[0-9]{1,18}$`, else null; a date
 *   from a year in 1..9999 and a month clamped to 1..12 (missing: 1), else null;
 * - lake_position_facts (20261203000100_import_position_facts), which restates the rule functions
 *   of 20261122000100_lake_rules / 20261202000400_import_rule_speed (the previous position, the job
 *   change, the past-employer ordinals, the current start date);
 * - lake_skills (20261121000400_search): distinct lower-case skill names, empty ones left out.
 * The rules the queries still use in SQL (lake_changed_employer, lake_skills and the others by the
 * relationship lists and the search) are tied to these by test/integration/lake/typedRows.test.ts:
 * the rows of a generated world written both ways are identical.
 *
 * Where SQL's lower()/upper() would be applied to text that is not ASCII (the database's LC_CTYPE
 * decides those, and JavaScript's case mapping differs from it on some letters), the row is marked
 * `sqlRules`: the writer lets the SQL functions set those columns (personRecords.ts
 * applyPersonSqlRules). A record whose values the SQL cast would refuse (an integer beyond int4, more
 * positions than a smallint ordinal holds) gives undefined: the writer sends its batch through the
 * SQL upsert, which reports it exactly as before.
 */
import type { PersonRecord } from '../../../model/records';

type Position = PersonRecord['positions'][number];

const INT4_MAX = 2_147_483_647;
const SMALLINT_MAX = 32_767;
const BIGINT_TEXT = /^[0-9]{1,18}$/;
const NOT_ASCII = /[^\x00-\x7f]/;
const COPY_SPECIAL = /[\\\n\r\t]/;
const COPY_SPECIAL_ALL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value as a field of COPY's text format: `\N` for null, backslash escapes otherwise. */
export function copyField(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!) : value;
}

/** A text[] literal ('{"a","b"}'), before COPY escaping. */
export function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((s) => `"${s.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** lake_bigint: the company ID as a bigint's text, or null. */
export function lakeBigint(text: string | null | undefined): string | null {
  return typeof text === 'string' && BIGINT_TEXT.test(text) ? BigInt(text).toString() : null;
}

/** lake_date: 'YYYY-MM-01', or null (year outside 1..9999). */
export function lakeDate(year: number | null | undefined, month: number | null | undefined): string | null {
  if (typeof year !== 'number' || year < 1 || year > 9999) return null;
  const m = Math.min(Math.max(month ?? 1, 1), 12);
  return `${String(year).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
}

/** `(x)::int` of SQL accepts it (a missing or null value is fine: it stays null). */
const int4 = (v: number | null | undefined) => v === null || v === undefined || (Number.isInteger(v) && Math.abs(v) <= INT4_MAX);

export interface PositionFacts {
  previous: Position | null;
  changedEmployer: boolean;
  /** Ordinals of the newest ended position at each company the person does not work at now. */
  pastOrdinals: number[];
  currentStartedOn: string | null;
  /** The job change compared names that are not ASCII: SQL's lower() decides it. */
  sqlRule: boolean;
}

/** lake_position_facts, over positions in stored order (newest first). */
export function positionFacts(positions: readonly Position[]): PositionFacts {
  let previous: Position | null = null;
  let currentStartedOn: string | null = null;
  let startedFound = false;
  const currentIds = new Set<string>();
  for (const p of positions) {
    if (p.isCurrent === true) {
      const cid = lakeBigint(p.companyId);
      if (cid !== null) currentIds.add(cid);
      if (!startedFound) {
        currentStartedOn = lakeDate(p.startYear, p.startMonth);
        startedFound = true;
      }
    } else if (previous === null) {
      previous = p;
    }
  }
  const pastOrdinals: number[] = [];
  const seen = new Set<string>();
  positions.forEach((p, i) => {
    const cid = lakeBigint(p.companyId);
    if (cid === null || p.isCurrent === true) return;
    if (!currentIds.has(cid) && !seen.has(cid)) pastOrdinals.push(i);
    seen.add(cid);
  });
  const current = positions[0]?.isCurrent === true ? positions[0] : null;
  let changedEmployer = false;
  let sqlRule = false;
  if (current && previous) {
    const c = lakeBigint(current.companyId);
    const p = lakeBigint(previous.companyId);
    if (c !== null && p !== null) changedEmployer = c !== p;
    else {
      sqlRule = NOT_ASCII.test(current.companyName) || NOT_ASCII.test(previous.companyName);
      changedEmployer = current.companyName.toLowerCase() !== previous.companyName.toLowerCase();
    }
  }
  return { previous, changedEmployer, pastOrdinals, currentStartedOn, sqlRule };
}

/** lake_skills: distinct lower-case names, empty ones left out, in code point order. */
export function lakeSkills(skills: readonly { name: string }[]): { skills: string[]; sqlRule: boolean } {
  const names = new Set<string>();
  let sqlRule = false;
  for (const s of skills) {
    if (typeof s.name !== 'string' || s.name === '') continue;
    if (NOT_ASCII.test(s.name)) sqlRule = true;
    names.add(s.name.toLowerCase());
  }
  return { skills: [...names].sort(), sqlRule };
}

export interface PersonRows {
  /**
   * The line of `persons` (PERSON_COLUMNS) in two pieces, `person` + `record` + a newline: its
   * columns up to the stored text (each followed by a tab), and the stored text escaped. Kept
   * apart, so the COPY encodes the 5 KB text as the flat string it is (a rope of the whole line
   * was flattened first, issue 35).
   */
  person: string;
  /** The stored text escaped for COPY, or its UTF-8 bytes as read when nothing needed escaping (writer.ts prepareRecord). */
  record: string | Buffer;
  /** Lines of `person_positions` (POSITION_COLUMNS), possibly none. */
  positions: string;
  /** Lines of `person_educations` (EDUCATION_COLUMNS), possibly none. */
  educations: string;
  /** One line of `person_refresh` (REFRESH_COLUMNS). */
  refresh: string;
  /** Some column needs SQL's case mapping (see the top of this file). */
  sqlRules: boolean;
}

export const PERSON_COLUMNS = [
  'id', 'username', 'network_id', 'network_urn', 'full_name', 'current_title', 'current_company',
  'current_company_id', 'current_company_industry', 'seniority', 'geo_country_code', 'geo_city',
  'current_started_on', 'fetched_at', 'skills', 'previous_company_id', 'previous_company',
  'changed_employer', 'record',
] as const;
export const POSITION_COLUMNS = ['person_id', 'ordinal', 'company_id', 'company_name', 'title', 'is_current', 'started_on', 'ended_on', 'latest_past'] as const;
export const EDUCATION_COLUMNS = ['person_id', 'ordinal', 'school_name'] as const;
export const REFRESH_COLUMNS = ['person_id', 'checked_at'] as const;

const bool = (b: boolean) => (b ? 't' : 'f');

/**
 * The rows of one person as stored: `record` with its positions newest first (the writer's
 * normalize), `username` its stored username, `text` the JSON text stored. Undefined when SQL
 * would refuse a value (the caller writes the record through the SQL upsert instead).
 */
export function personRows(record: PersonRecord, username: string, text: string): PersonRows | undefined {
  const positions = record.positions ?? [];
  const educations = record.educations ?? [];
  if (positions.length > SMALLINT_MAX + 1 || educations.length > SMALLINT_MAX + 1) return undefined;
  for (const p of positions) {
    if (!int4(p.startYear) || !int4(p.startMonth) || !int4(p.endYear) || !int4(p.endMonth)) return undefined;
  }
  const facts = positionFacts(positions);
  const skills = lakeSkills(record.skills ?? []);
  const country = record.geo_country_code;
  const id = record.id;
  const fields = [
    id,
    username,
    record.network_id,
    record.network_urn,
    record.full_name,
    record.current_title,
    record.current_company,
    lakeBigint(record.current_company_id),
    record.current_company_industry,
    record.seniority,
    country?.toUpperCase(),
    record.geo_city,
    facts.currentStartedOn,
    record.fetched_at,
    arrayLiteral(skills.skills),
    lakeBigint(facts.previous?.companyId),
    facts.previous ? facts.previous.companyName : null,
    bool(facts.changedEmployer),
    null,
  ];
  const past = new Set(facts.pastOrdinals);
  let positionLines = '';
  positions.forEach((p, i) => {
    positionLines += `${id}\t${i}\t${copyField(lakeBigint(p.companyId))}\t${copyField(p.companyName)}\t${copyField(p.title)}\t${bool(p.isCurrent === true)}\t${copyField(lakeDate(p.startYear, p.startMonth))}\t${copyField(lakeDate(p.endYear, p.endMonth))}\t${bool(past.has(i))}\n`;
  });
  let educationLines = '';
  educations.forEach((e, i) => {
    if (typeof e.schoolName === 'string' && e.schoolName !== '') educationLines += `${id}\t${i}\t${copyField(e.schoolName)}\n`;
  });
  // The stored text is JSON.stringify output: no raw newline, return or tab, so only its
  // backslashes need escaping (found by indexOf, faster than a regular expression over 5 KB).
  const doc = text.indexOf('\\') === -1 ? text : text.replaceAll('\\', '\\\\');
  let person = '';
  for (let i = 0; i < fields.length - 1; i += 1) person += `${copyField(fields[i])}\t`;
  return {
    person,
    record: doc,
    positions: positionLines,
    educations: educationLines,
    refresh: `${id}\t${record.fetched_at}\n`,
    sqlRules: facts.sqlRule || skills.sqlRule || (typeof country === 'string' && NOT_ASCII.test(country)),
  };
}
