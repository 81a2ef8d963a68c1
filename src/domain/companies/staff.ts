/**
 * The lists and counts of one company's people, by its numeric company ID: listCurrentEmployees,
 * listDecisionMakers, listPastEmployees, listHiringSignals, getHeadcountBySeniority. Their SQL:
 * db/repositories/companies.ts. The past-employee rule (the newest ended position at a company the
 * person no longer works at) is the SQL function lake_latest_past_ordinals, in migration
 * 20261122000100_lake_rules.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { findCompanyFreshness } from '../../db/repositories/companyRecords';
import {
  countStaffBySeniority,
  listCompanyStaff,
  listHiringSignals as listHiringSignalRows,
  listPastEmployees as listPastEmployeeRows,
} from '../../db/repositories/companies';
import { NO_BAND_RANK, SENIORITY_RANK, type PersonSearchHit } from '../../db/repositories/personHits';
import { canonicalCompanyId, type CompanyKey, storedCompanyId } from '../../model/identifiers';
import { foundOr451Or404 } from '../lake/presence';
import { listed, pageOf, windowStart, type ListBody, type PageRequest } from '../paging';
import { DEFAULT_WITHIN_MONTHS } from '../people/relationships';

type PastEmployeeHit = components['schemas']['PastEmployeeHit'];
type HiringSignalHit = components['schemas']['HiringSignalHit'];
type HeadcountBySeniority = components['schemas']['HeadcountBySeniority'];

/** The company's ID as stored: 404 when no company has it, 451 when the company was withdrawn. */
async function indexedCompanyId(db: Knex, companyId: string): Promise<string> {
  const stored = storedCompanyId(companyId);
  const key: CompanyKey = { by: 'company_id', value: canonicalCompanyId(companyId) };
  const row = stored === undefined ? undefined : await findCompanyFreshness(db, 'company_id', stored);
  await foundOr451Or404(db, 'company', key, row);
  return key.value;
}

export async function listCurrentEmployees(db: Knex, companyId: string, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'listCurrentEmployees');
  const id = await indexedCompanyId(db, companyId);
  return listed(paging, (page) => listCompanyStaff(db, id, {}, page));
}

export async function listDecisionMakers(db: Knex, companyId: string, req: PageRequest): Promise<ListBody<PersonSearchHit>> {
  const paging = pageOf(req, 'listDecisionMakers');
  const id = await indexedCompanyId(db, companyId);
  return listed(paging, (page) => listCompanyStaff(db, id, { maxRank: SENIORITY_RANK.director }, page));
}

export async function listPastEmployees(db: Knex, companyId: string, req: PageRequest): Promise<ListBody<PastEmployeeHit>> {
  const paging = pageOf(req, 'listPastEmployees');
  const id = await indexedCompanyId(db, companyId);
  return listed(paging, (page) => listPastEmployeeRows<PastEmployeeHit>(db, id, page));
}

export async function listHiringSignals(
  db: Knex,
  companyId: string,
  req: PageRequest & { within_months?: number },
): Promise<ListBody<HiringSignalHit>> {
  const paging = pageOf(req, 'listHiringSignals');
  const id = await indexedCompanyId(db, companyId);
  const since = windowStart(req.within_months ?? DEFAULT_WITHIN_MONTHS);
  return listed(paging, (page) => listHiringSignalRows<HiringSignalHit>(db, id, since, page));
}

export async function getHeadcountBySeniority(db: Knex, companyId: string): Promise<HeadcountBySeniority> {
  const id = await indexedCompanyId(db, companyId);
  const byRank = await countStaffBySeniority(db, id);
  const count = (rank: number) => byRank.get(rank) ?? 0;
  const counts = {
    'c-level': count(SENIORITY_RANK['c-level']),
    vp: count(SENIORITY_RANK.vp),
    director: count(SENIORITY_RANK.director),
    manager: count(SENIORITY_RANK.manager),
    unassigned: count(NO_BAND_RANK),
  };
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return { company_id: id, total, counts };
}
