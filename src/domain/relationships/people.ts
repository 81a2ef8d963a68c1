/** Relationship lists around one person (colleagues, similar people), job changes and alumni. */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import {
  findSubject,
  listAlumni as listAlumniRows,
  listCompanyStaff,
  listJobChanges as listJobChangeRows,
  listSimilar,
  type PersonSearchHit,
  type SubjectRow,
} from '../../db/repositories/personLists';
import { notFound } from '../errors';
import type { PersonKey } from '../lake/identifiers';
import { assertNotWithdrawn } from '../lake/suppression';
import { emptyList, listBody, lowerText, pageOf, storedCompanyId, windowStart, type ListBody, type PageRequest } from '../search/paging';

type JobChangeHit = components['schemas']['JobChangeHit'];

/** The person a relationship list is about: 404 when not indexed, 451 when withdrawn. */
async function subjectOf(db: Knex, key: PersonKey): Promise<SubjectRow> {
  const subject = await findSubject(db, key.by, key.value);
  if (subject) return subject;
  await assertNotWithdrawn(db, 'person', key);
  throw notFound('No person with this identifier is indexed in the data lake.');
}

export async function listColleagues(db: Knex, key: PersonKey, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req);
  const subject = await subjectOf(db, key);
  if (subject.current_company_id === null) return emptyList(paging);
  return listBody(await listCompanyStaff(db, subject.current_company_id, { exceptId: subject.id }, paging), paging);
}

export async function listSimilarPeople(db: Knex, key: PersonKey, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req);
  const subject = await subjectOf(db, key);
  return listBody(await listSimilar(db, subject, paging), paging);
}

export interface JobChangesRequest extends PageRequest {
  within_months?: number;
  previous_company_id?: string;
  previous_company?: string;
}

/** Default look-back of the job-change and hiring-signal lists (the contract's WithinMonths default). */
export const DEFAULT_WITHIN_MONTHS = 3;

export async function listJobChanges(db: Knex, req: JobChangesRequest): Promise<ListBody<JobChangeHit>> {
  const paging = pageOf(req);
  const since = windowStart(req.within_months ?? DEFAULT_WITHIN_MONTHS);
  if (req.previous_company_id !== undefined) {
    const previousCompanyId = storedCompanyId(req.previous_company_id);
    if (previousCompanyId === undefined) return emptyList(paging);
    return listBody(await listJobChangeRows<JobChangeHit>(db, { since, previousCompanyId }, paging), paging);
  }
  const previousCompany = lowerText(req.previous_company);
  return listBody(await listJobChangeRows<JobChangeHit>(db, { since, previousCompany }, paging), paging);
}

export async function listAlumni(db: Knex, school: string, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req);
  return listBody(await listAlumniRows(db, school.toLowerCase(), paging), paging);
}
