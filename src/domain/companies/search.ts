/** searchCompanies (POST /companies/search): the request's filters, normalized into the repository's criteria (SQL: db/repositories/companies.ts). */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { searchCompanies as searchCompanyRows, type CompanySearchHit } from '../../db/repositories/companies';
import { validationError } from '../errors';
import { asArray, listed, pageOf, upperAll, type ListBody } from '../paging';

export type SearchCompaniesRequest = components['schemas']['SearchCompaniesRequest'];

function assertRange(field: string, min: number | undefined, max: number | undefined): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw validationError(`${field}_min: must not be greater than ${field}_max`);
  }
}

export async function searchCompanies(db: Knex, req: SearchCompaniesRequest): Promise<ListBody<CompanySearchHit>> {
  assertRange('headcount', req.headcount_min, req.headcount_max);
  assertRange('founded_year', req.founded_year_min, req.founded_year_max);
  const query = req.query?.trim();
  if (query === '') throw validationError('query: must contain at least one word');
  const paging = pageOf(req, 'searchCompanies');
  return listed(paging, (page) => searchCompanyRows(
    db,
    {
      query,
      name: req.name,
      industries: asArray(req.industry),
      headcountMin: req.headcount_min,
      headcountMax: req.headcount_max,
      countries: upperAll(req.hq_country),
      city: req.hq_city,
      foundedMin: req.founded_year_min,
      foundedMax: req.founded_year_max,
    },
    page,
  ));
}
