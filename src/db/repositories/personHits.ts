/**
 * How every list of people is answered (search and the relationship endpoints of people, companies
 * and institutions): one page query and one count query over the same conditions, run side by side,
 * then the hits of the page's rows built in SQL from the stored record, so their fields are the
 * record's own values. The derived columns and their rules: migrations 20261121000400_search and
 * 20261122000100_lake_rules.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { boundedCount, pageQuery, splitPage, term, totalOf, TOTAL_BOUND, type ListResult, type OrderTerm, type Page } from './pages';

export type PersonSearchHit = components['schemas']['PersonSearchHit'];

/** The hit object, from `r` = the record as jsonb. */
const HIT = `json_build_object(
  'id', r->'id', 'full_name', r->'full_name', 'username', r->'username', 'network_url', r->'network_url',
  'current_title', r->'current_title', 'current_company', r->'current_company',
  'current_company_id', r->'current_company_id', 'seniority', r->'seniority', 'geo_city', r->'geo_city',
  'geo_country_code', r->'geo_country_code', 'education_schools', coalesce(r->'education_schools', '[]'),
  'past_companies', coalesce(r->'past_companies', '[]'), 'fetched_at', r->'fetched_at')`;

// Position fields as the contract's hit objects state them: 0 (the records' "unknown") and
// malformed company IDs become null.
const year = (p: string, f: string) => `(select y from (select (${p}->>'${f}')::int y) v where y between 1900 and 2100)`;
const month = (p: string, f: string) => `(select m from (select (${p}->>'${f}')::int m) v where m between 1 and 12)`;
const companyId = (p: string) => `(case when ${p}->>'companyId' ~ '^[0-9]{1,19}$' then ${p}->'companyId' end)`;

/** Extra objects of the relationship hits, from `r` and, for past roles, the position row `pp`. */
const EXTRAS = {
  job_change: `(select json_build_object(
      'previous_company', p->'companyName', 'previous_company_id', ${companyId('p')}, 'previous_title', p->'title',
      'new_company', c->'companyName', 'new_company_id', ${companyId('c')}, 'new_title', c->'title',
      'started_year', ${year('c', 'startYear')}, 'started_month', ${month('c', 'startMonth')})
    from (select lake_current_position(r) c, lake_previous_position(r) p) x)`,
  joined: `(select json_build_object('title', c->'title', 'start_year', ${year('c', 'startYear')},
      'start_month', ${month('c', 'startMonth')})
    from (select lake_current_position(r) c) x)`,
  past_role: `(select json_build_object('title', p->'title', 'company_name', p->'companyName',
      'start_year', ${year('p', 'startYear')}, 'start_month', ${month('p', 'startMonth')},
      'end_year', ${year('p', 'endYear')}, 'end_month', ${month('p', 'endMonth')})
    from (select r->'positions'->(pp.ordinal::int) p) x)`,
} as const;

export type HitExtra = keyof typeof EXTRAS;

/**
 * A list over `persons p`: `where` narrows it, `order` is the full deterministic order (it must
 * end with a unique column). The hit (and the extra object, if any) is computed only for the rows
 * of the page. `matches` replaces the default rows to count when a cheaper equivalent exists.
 */
export interface ListSpec {
  where: (qb: Knex.QueryBuilder) => void;
  order: OrderTerm[];
  extra?: HitExtra;
  matches?: () => Knex.QueryBuilder;
  /** Counting stops here (pages.ts TOTAL_BOUND by default). */
  totalBound?: number;
}

type PageRow = { id: string; ordinal?: number };

export async function listPersons<T = PersonSearchHit>(db: Knex, spec: ListSpec, page: Page): Promise<ListResult<T>> {
  const base = () => {
    const qb = db.from('persons as p');
    spec.where(qb);
    return qb;
  };
  const rows = pageQuery(db, base().select('p.id'), spec.order, page);
  return pageWithTotal(db, rows, spec.order, page, spec.matches?.() ?? base().select(db.raw('1')), spec.extra, spec.totalBound);
}

/** Runs a page query (pages.ts pageQuery) and the bounded count side by side, then builds the hits. */
export async function pageWithTotal<T>(
  db: Knex,
  rowsQuery: Knex.QueryBuilder,
  order: OrderTerm[],
  page: Page,
  matches: Knex.QueryBuilder,
  extra?: HitExtra,
  bound = TOTAL_BOUND,
): Promise<ListResult<T>> {
  const [rows, count] = await Promise.all([
    rowsQuery as Promise<(PageRow & Record<string, unknown>)[]>,
    boundedCount(db, matches, bound) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows, order, page);
  return { rows: await hitsOf<T>(db, split.rows, extra), next: split.next, ...totalOf(count, bound) };
}

/** The page of a list whose total is already known (counted first, to choose the page's plan). */
export async function pageAfterTotal<T>(
  db: Knex,
  rowsQuery: PromiseLike<unknown>,
  order: OrderTerm[],
  page: Page,
  total: Pick<ListResult<T>, 'total' | 'totalRelation'>,
): Promise<ListResult<T>> {
  const rows = (await rowsQuery) as (PageRow & Record<string, unknown>)[];
  const split = splitPage(rows, order, page);
  return { rows: await hitsOf<T>(db, split.rows), next: split.next, ...total };
}

/** The hits of one page, in the page's order; records are read for these rows only. */
async function hitsOf<T>(db: Knex, page: PageRow[], extra?: HitExtra): Promise<T[]> {
  if (!page.length) return [];
  const hit = extra ? `${HIT}::jsonb || jsonb_build_object('${extra}', ${EXTRAS[extra]})` : HIT;
  const { rows } = await db.raw(
    `select ${hit} as hit
     from unnest(?::uuid[], ?::int[]) with ordinality as page(id, ordinal, n)
     join persons on persons.id = page.id
     left join person_positions pp on pp.person_id = page.id and pp.ordinal = page.ordinal
     -- offset 0 keeps the subquery whole: inlined, every r->'x' would parse the record again.
     cross join lateral (select persons.record::jsonb as r offset 0) rec
     order by page.n`,
    [page.map((r) => r.id), page.map((r) => r.ordinal ?? null)] as Knex.RawBinding[],
  );
  return (rows as { hit: T }[]).map((r) => r.hit);
}

/** seniority_rank values (migration 20261121000400_search): 1 c-level ... 4 manager, 5 no band. */
export const SENIORITY_RANK = { 'c-level': 1, vp: 2, director: 3, manager: 4 } as const;
export const NO_BAND_RANK = 5;

/** Company staff order: band (c-level first, no band last), name in code-point order, id. */
export const STAFF_ORDER: OrderTerm[] = [
  term('p.seniority_rank', 'asc', 'smallint'),
  term('p.full_name collate "C"', 'asc', 'text'),
  term('p.id', 'asc', 'uuid'),
];
/**
 * The order of lists that have no order of their own (a search without `query`, similar people,
 * alumni): the person's id, which never changes. Never the verification time (`fetched_at`): the
 * refresh moves it on every re-verification, and a cursor walk in that order missed every row
 * re-verified ahead of it (issue 20). In id order a row keeps its place whatever the refresh does.
 */
export const ID_ORDER: OrderTerm[] = [term('p.id', 'asc', 'uuid')];
/** Lists whose filter keeps current_started_on non-null (a window start). */
export const STARTED_ORDER: OrderTerm[] = [term('p.current_started_on', 'desc', 'date'), term('p.id', 'asc', 'uuid')];


/** Has an education at the school, case-insensitively (both sides lower()ed by the database, so they agree). */
export const hasSchool = (school: string) => (sub: Knex.QueryBuilder) =>
  sub.from('person_educations as e').whereRaw('e.person_id = p.id and lower(e.school_name) = lower(?)', [school]);

