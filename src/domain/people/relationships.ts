/**
 * listColleagues, listSimilarPeople and listJobChanges: the relationship lists of the people tag.
 * Their SQL: db/repositories/people.ts (and companies.ts listCompanyStaff for colleagues). The job
 * change rule (a new current position at another employer) is the SQL function
 * lake_changed_employer, in migration 20261122000100_lake_rules.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { listCompanyStaff } from '../../db/repositories/companies';
import { findSubject, listJobChanges as listJobChangeRows, listSimilarPeople as listSimilarRows, type SubjectRow } from '../../db/repositories/people';
import type { PersonSearchHit } from '../../db/repositories/personHits';
import { type PersonKey, storedCompanyId } from '../../model/identifiers';
import { foundOr451Or404 } from '../lake/presence';
import { emptyList, listed, pageOf, windowStart, type ListBody, type PageRequest } from '../paging';

type JobChangeHit = components['schemas']['JobChangeHit'];

/** The person a relationship list is about: 404 when not indexed, 451 when withdrawn. */
async function subjectOf(db: Knex, key: PersonKey): Promise<SubjectRow> {
  return foundOr451Or404(db, 'person', key, await findSubject(db, key.by, key.value));
}

export async function listColleagues(db: Knex, key: PersonKey, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'listColleagues');
  const subject = await subjectOf(db, key);
  if (subject.current_company_id === null) return emptyList(paging);
  return listed(paging, (page) => listCompanyStaff(db, subject.current_company_id!, { exceptId: subject.id }, page));
}

export async function listSimilarPeople(db: Knex, key: PersonKey, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'listSimilarPeople');
  const subject = await subjectOf(db, key);
  return listed(paging, (page) => listSimilarRows(db, subject, page));
}

export interface JobChangesRequest extends PageRequest {
  within_months?: number;
  previous_company_id?: string;
  previous_company?: string;
}

/** Default look-back of the job-change and hiring-signal lists (the contract's WithinMonths default). */
export const DEFAULT_WITHIN_MONTHS = 3;

export async function listJobChanges(db: Knex, req: JobChangesRequest): Promise<ListBody<JobChangeHit>> {
  const paging = pageOf(req, 'listJobChanges');
  const since = windowStart(req.within_months ?? DEFAULT_WITHIN_MONTHS);
  if (req.previous_company_id !== undefined) {
    const previousCompanyId = storedCompanyId(req.previous_company_id);
    if (previousCompanyId === undefined) return emptyList(paging);
    return listed(paging, (page) => listJobChangeRows<JobChangeHit>(db, { since, previousCompanyId }, page));
  }
  const previousCompany = req.previous_company;
  return listed(paging, (page) => listJobChangeRows<JobChangeHit>(db, { since, previousCompany }, page));
}
