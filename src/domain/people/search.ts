/** searchPeople (POST /people/search): the request's filters, normalized into the repository's criteria (SQL: db/repositories/people.ts). */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { searchPeople as searchPeopleRows, type PersonCriteria } from '../../db/repositories/people';
import type { PersonSearchHit } from '../../db/repositories/personHits';
import { storedCompanyId } from '../../model/identifiers';
import { validationError } from '../errors';
import {
  asArray,
  emptyList,
  listed,
  pageOf,
  upperAll,
  type ListBody,
} from '../paging';

export type SearchPeopleRequest = components['schemas']['SearchPeopleRequest'];

/** Text that must hold at least one word; a blank value is a 400 naming the field. */
function words(field: string, text: string): string[] {
  const list = text.split(/\s+/).filter(Boolean);
  if (!list.length) throw validationError(`${field}: must contain at least one word`);
  return list;
}

/**
 * Undefined when some filter can match nothing whatever the data (a company ID beyond the stored
 * range), so the search is answered without a query.
 */
function personCriteria(req: SearchPeopleRequest): PersonCriteria | undefined {
  const criteria: PersonCriteria = {
    query: req.query === undefined ? undefined : words('query', req.query).join(' '),
    titleWords: req.title === undefined ? undefined : words('title', req.title),
    company: req.company,
    countries: upperAll(req.location),
    city: req.city,
    industries: asArray(req.industry),
    seniorities: asArray(req.seniority),
    skills: asArray(req.skills),
    school: req.school,
    pastCompany: req.past_company,
  };
  if (req.company_id !== undefined) {
    criteria.companyId = storedCompanyId(req.company_id);
    if (criteria.companyId === undefined) return undefined;
  }
  if (req.past_company_id !== undefined) {
    criteria.pastCompanyId = storedCompanyId(req.past_company_id);
    if (criteria.pastCompanyId === undefined) return undefined;
  }
  return criteria;
}

export async function searchPeople(db: Knex, req: SearchPeopleRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'searchPeople');
  const criteria = personCriteria(req);
  if (!criteria) return emptyList(paging);
  return listed(paging, (page) => searchPeopleRows(db, criteria, page));
}
