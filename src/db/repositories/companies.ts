/**
 * SQL of the companies operations: searchCompanies over the companies table's derived columns
 * (migration 20261121000400_search), and the lists of one company's people (listCurrentEmployees,
 * listDecisionMakers and listColleagues share listCompanyStaff; getHeadcountBySeniority,
 * listHiringSignals, listPastEmployees).
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type OrderTerm, type Page } from './pages';
import { inPageOrder, listPersons, pageWithTotal, STAFF_ORDER, STARTED_ORDER, type PersonSearchHit } from './personHits';

export type CompanySearchHit = components['schemas']['CompanySearchHit'];

/** Normalized by the domain: lower-cased text, upper-cased country codes. */
export interface CompanyCriteria {
  query?: string;
  name?: string;
  industries?: string[];
  headcountMin?: number;
  headcountMax?: number;
  countries?: string[];
  city?: string;
  foundedMin?: number;
  foundedMax?: number;
}

const HIT = `json_build_object(
  'id', r->'id', 'company_id', r->'company_id', 'name', r->'name', 'username', r->'username',
  'network_url', r->'network_url', 'industries', coalesce(r->'industries', '[]'), 'staff_count', r->'staff_count',
  'hq_city', r->'hq_city', 'hq_country_code', r->'hq_country_code', 'founded_year', r->'founded_year',
  -- A re-verified record's fetched_at is kept beside its stored text (model/recordText.ts).
  'fetched_at', coalesce(to_jsonb(companies.fetched_at_text), r->'fetched_at'))`;

/**
 * Companies without a query: by id, a key the refresh never moves. Not by headcount: the refresh
 * rewrites `staff_count` whenever the source's changes, and a cursor walk in that order missed or
 * repeated every company whose headcount moved across its position (issue 20).
 */
const COMPANY_ORDER: OrderTerm[] = [term('c.id', 'asc', 'uuid')];

export async function searchCompanies(db: Knex, c: CompanyCriteria, page: Page): Promise<ListResult<CompanySearchHit>> {
  const base = () => {
    const qb = db.from('companies as c');
    if (c.query !== undefined) qb.whereRaw(`c.search_words @@ websearch_to_tsquery('simple', ?)`, [c.query]);
    if (c.name !== undefined) qb.whereRaw('lower(c.name) = lower(?)', [c.name]);
    if (c.industries) qb.whereRaw('c.industries_lower && array(select lower(x) from unnest(?::text[]) x)', [c.industries]);
    if (c.headcountMin !== undefined) qb.where('c.staff_count', '>=', c.headcountMin);
    if (c.headcountMax !== undefined) qb.where('c.staff_count', '<=', c.headcountMax);
    if (c.countries) qb.whereIn('c.hq_country_code', c.countries);
    if (c.city !== undefined) qb.whereRaw('lower(c.hq_city) = lower(?)', [c.city]);
    if (c.foundedMin !== undefined) qb.where('c.founded_year', '>=', c.foundedMin);
    if (c.foundedMax !== undefined) qb.where('c.founded_year', '<=', c.foundedMax);
    return qb;
  };
  const order =
    c.query !== undefined
      ? [term(`ts_rank(c.search_words, websearch_to_tsquery('simple', ?))`, 'desc', 'real', { bindings: [c.query] }), term('c.id', 'asc', 'uuid')]
      : COMPANY_ORDER;
  const [rows, count] = await Promise.all([
    pageQuery(db, base().select('c.id'), order, page) as Promise<{ id: string }[]>,
    boundedCount(db, base().select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows, order, page);
  return { rows: await hitsOf(db, split.rows.map((r) => r.id)), next: split.next, ...totalOf(count) };
}

/** The hits of one page, in the page's order; records are read for these rows only. */
async function hitsOf(db: Knex, ids: string[]): Promise<CompanySearchHit[]> {
  if (!ids.length) return [];
  // `id = any(...)`, then the page's order here (personHits.ts hitsOf says why).
  const { rows } = await db.raw(
    `select companies.id, ${HIT} as hit
     from companies
     -- offset 0 keeps the subquery whole: inlined, every r->'x' would parse the record again.
     cross join lateral (select companies.record::jsonb as r offset 0) rec
     where companies.id = any(?::uuid[])`,
    [ids],
  );
  return inPageOrder(ids, rows as { id: string; hit: CompanySearchHit }[]);
}


export function listCompanyStaff(
  db: Knex,
  companyId: string,
  opts: { exceptId?: string; maxRank?: number },
  page: Page,
): Promise<ListResult<PersonSearchHit>> {
  return listPersons(
    db,
    {
      where: (qb) => {
        qb.where('p.current_company_id', companyId);
        if (opts.exceptId) qb.whereNot('p.id', opts.exceptId);
        if (opts.maxRank) qb.where('p.seniority_rank', '<=', opts.maxRank);
      },
      order: STAFF_ORDER,
    },
    page,
  );
}

/** Current employees per seniority_rank (getHeadcountBySeniority). */
export async function countStaffBySeniority(db: Knex, companyId: string): Promise<Map<number, number>> {
  const rows: { rank: number; count: number }[] = await db('persons')
    .where('current_company_id', companyId)
    .groupBy('seniority_rank')
    .select({ rank: 'seniority_rank' })
    .count({ count: '*' });
  return new Map(rows.map((r) => [Number(r.rank), Number(r.count)]));
}

export function listHiringSignals<T>(db: Knex, companyId: string, since: string, page: Page): Promise<ListResult<T>> {
  return listPersons<T>(
    db,
    {
      where: (qb) => qb.where('p.current_company_id', companyId).where('p.current_started_on', '>=', since),
      order: STARTED_ORDER,
      extra: 'joined',
    },
    page,
  );
}

/** Past employees: most recently left first (end unknown last), then person. */
const PAST_ORDER: OrderTerm[] = [term('pp.ended_on', 'desc', 'date', { nullable: true }), term('pp.person_id', 'asc', 'uuid')];

/**
 * One row per person: their newest ended position at the company, if they do not work there now
 * (latest_past). Positions go with their person (on delete cascade), so persons is not joined.
 */
export function listPastEmployees<T>(db: Knex, companyId: string, page: Page): Promise<ListResult<T>> {
  const base = () => db('person_positions as pp').where('pp.company_id', companyId).where('pp.latest_past', true);
  const rows = pageQuery(db, base().select({ id: 'pp.person_id', ordinal: 'pp.ordinal' }), PAST_ORDER, page);
  return pageWithTotal<T>(db, rows, PAST_ORDER, page, base().select(db.raw('1')), 'past_role');
}
