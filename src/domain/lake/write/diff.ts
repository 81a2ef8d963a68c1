/**
 * The one diff of the service: an old and a new copy of a record -> the change-log entries the
 * contract's `webhooks` section describes. Used by every write into the lake (refresh, realtime
 * write-back, import) through domain/lake/write/writer.ts, so a change is detected the same way wherever
 * the new copy came from. Pure: no database, no clock.
 */
import { isDeepStrictEqual } from 'node:util';
import type { components } from '../../../../generated/types';
import { isNumericId } from '../../../model/identifiers';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../../model/records';

type Schemas = components['schemas'];
export type ChangeEvent = Schemas['MonitorEvent'];

/** The `diff` object of each event, exactly as the contract's webhook payloads carry it. */
export interface ChangeDiffs {
  'person.job_changed': Schemas['PersonJobChangedEvent']['diff'];
  'person.title_changed': Schemas['PersonTitleChangedEvent']['diff'];
  'person.location_changed': Schemas['PersonLocationChangedEvent']['diff'];
  'company.headcount_changed': Schemas['CompanyHeadcountChangedEvent']['diff'];
  'company.name_changed': Schemas['CompanyNameChangedEvent']['diff'];
  'company.hq_changed': Schemas['CompanyHqChangedEvent']['diff'];
  'company.industry_changed': Schemas['CompanyIndustryChangedEvent']['diff'];
}

export type ChangeEntry = {
  [E in ChangeEvent]: { kind: LakeKind; subjectId: string; event: E; diff: ChangeDiffs[E] };
}[ChangeEvent];

const numericId = (value: string | null | undefined): bigint | undefined => (isNumericId(value) ? BigInt(value) : undefined);

const lower = (value: string | null | undefined) => (value == null ? null : value.toLowerCase());

/**
 * Same employer: by numeric company ID when both copies have one, otherwise by name (letter case
 * ignored), the rule the lake's job-change columns use (lake_changed_employer).
 */
export function sameEmployer(
  a: { company: string | null; companyId: string | null },
  b: { company: string | null; companyId: string | null },
): boolean {
  const ia = numericId(a.companyId);
  const ib = numericId(b.companyId);
  if (ia !== undefined && ib !== undefined) return ia === ib;
  return lower(a.company) === lower(b.company);
}

export function diffPersons(old: PersonRecord, next: PersonRecord): ChangeEntry[] {
  const subjectId = next.id;
  const entries: ChangeEntry[] = [];
  const before = { company: old.current_company, companyId: old.current_company_id };
  const after = { company: next.current_company, companyId: next.current_company_id };
  if (!sameEmployer(before, after)) {
    entries.push({
      kind: 'person',
      subjectId,
      event: 'person.job_changed',
      diff: {
        old_company: old.current_company,
        new_company: next.current_company,
        old_company_id: old.current_company_id,
        new_company_id: next.current_company_id,
        old_title: old.current_title,
        new_title: next.current_title,
      },
    });
  } else if (old.current_title !== next.current_title) {
    entries.push({
      kind: 'person',
      subjectId,
      event: 'person.title_changed',
      diff: {
        old_title: old.current_title,
        new_title: next.current_title,
        company: next.current_company,
        company_id: next.current_company_id,
      },
    });
  }
  if (old.geo_city !== next.geo_city || lower(old.geo_country_code) !== lower(next.geo_country_code)) {
    entries.push({
      kind: 'person',
      subjectId,
      event: 'person.location_changed',
      diff: {
        old_city: old.geo_city,
        new_city: next.geo_city,
        old_country_code: old.geo_country_code,
        new_country_code: next.geo_country_code,
      },
    });
  }
  return entries;
}

export function diffCompanies(old: CompanyRecord, next: CompanyRecord): ChangeEntry[] {
  const subjectId = next.id;
  const entries: ChangeEntry[] = [];
  if (old.staff_count !== next.staff_count) {
    entries.push({
      kind: 'company',
      subjectId,
      event: 'company.headcount_changed',
      diff: {
        old_staff_count: old.staff_count,
        new_staff_count: next.staff_count,
        change: old.staff_count === null || next.staff_count === null ? null : next.staff_count - old.staff_count,
      },
    });
  }
  if (old.name !== next.name) {
    entries.push({ kind: 'company', subjectId, event: 'company.name_changed', diff: { old_name: old.name, new_name: next.name } });
  }
  if (old.hq_city !== next.hq_city || lower(old.hq_country_code) !== lower(next.hq_country_code)) {
    entries.push({
      kind: 'company',
      subjectId,
      event: 'company.hq_changed',
      diff: {
        old_hq_city: old.hq_city,
        new_hq_city: next.hq_city,
        old_hq_country_code: old.hq_country_code,
        new_hq_country_code: next.hq_country_code,
      },
    });
  }
  // Order alone is not a change.
  const sorted = (list: readonly string[]) => [...list].sort();
  if (!isDeepStrictEqual(sorted(old.industries), sorted(next.industries))) {
    entries.push({
      kind: 'company',
      subjectId,
      event: 'company.industry_changed',
      diff: { old_industries: [...old.industries], new_industries: [...next.industries] },
    });
  }
  return entries;
}

export function diffRecords(kind: LakeKind, old: PersonRecord | CompanyRecord, next: PersonRecord | CompanyRecord): ChangeEntry[] {
  return kind === 'person'
    ? diffPersons(old as PersonRecord, next as PersonRecord)
    : diffCompanies(old as CompanyRecord, next as CompanyRecord);
}

const FETCHED_AT = /"fetched_at":"[^"]*"/;

/**
 * Whether two copies say the same thing apart from `fetched_at` (when it was verified). The texts
 * are compared first (the common case of an unchanged record costs no parsing); when they differ
 * the two are compared as values, so a source that orders object keys differently is not mistaken
 * for a change. `old` is the parsed `oldText` when the caller has it.
 */
export function isSameRecord(oldText: string, nextText: string, parse: () => { old: object; next: object }): boolean {
  if (oldText.replace(FETCHED_AT, '') === nextText.replace(FETCHED_AT, '')) return true;
  const { old, next } = parse();
  return isDeepStrictEqual({ ...next, fetched_at: null }, { ...old, fetched_at: null });
}
