/**
 * How every list of people is answered (search and the relationship endpoints of people, companies
 * and institutions): one page query and one count query over the same conditions, run side by side,
 * then the hits of the page's rows built in SQL from the stored record, so their fields are the
 * record's own values. The derived columns and their rules: migrations 20261121000400_search and
 * 20261122000100_lake_rules.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { COMPANY_ID_SQL_PATTERN } from '../../model/identifiers';
import { hasCountPushdown, hasIdentifierTable } from './lakeIdentifiers';
import { boundedCount, pageQuery, splitPage, term, totalOf, TOTAL_BOUND, type ListResult, type OrderTerm, type Page } from './pages';

export type PersonSearchHit = components['schemas']['PersonSearchHit'];

/**
 * The record's fields a hit (and its extra object) reads, taken from the stored JSON text by one
 * json_to_record pass: only these are kept (as json; `positions` as jsonb, and only for the extra
 * objects, which the position rules compute from it),
 * the rest of the record is lexed and skipped. Converting the whole record to jsonb first (5 KB a
 * profile) cost about twice as much: 82 against 44 ms for a page of 100 on a busy machine (issue
 * 35), the largest part of a 100-row page. A JSON null becomes SQL NULL here, so the two arrays
 * fall back to [] for it as for a missing key.
 */
const HIT_FIELDS = (positions: boolean) => `(select x.*${positions ? `, jsonb_build_object('positions', x.positions) as pr` : ''}
  from json_to_record(page.record) as x(id json, full_name json,
  username json, network_url json, current_title json, current_company json, current_company_id json,
  seniority json, geo_city json, geo_country_code json, education_schools json, past_companies json,
  fetched_at json${positions ? ', positions jsonb' : ''}) offset 0) r`;

/** The hit object, from `r` = the HIT_FIELDS of the record and `page` = the row read (hitsOf). */
const HIT = `json_build_object(
  'id', r.id, 'full_name', r.full_name, 'username', r.username, 'network_url', r.network_url,
  'current_title', r.current_title, 'current_company', r.current_company,
  'current_company_id', r.current_company_id, 'seniority', r.seniority, 'geo_city', r.geo_city,
  'geo_country_code', r.geo_country_code, 'education_schools', coalesce(r.education_schools, '[]'),
  'past_companies', coalesce(r.past_companies, '[]'),
  -- A re-verified record's fetched_at is kept beside its stored text (model/recordText.ts).
  'fetched_at', coalesce(to_json(page.fetched_at_text), r.fetched_at))`;

// Position fields as the contract's hit objects state them: 0 (the records' "unknown") and
// malformed company IDs become null. Plain expressions (CASE), no scalar sub-queries: a distributed
// planner (Citus) refuses correlated sub-queries in a query over a distributed table.
const year = (p: string, f: string) => `(case when (${p}->>'${f}')::int between 1900 and 2100 then (${p}->>'${f}')::int end)`;
const month = (p: string, f: string) => `(case when (${p}->>'${f}')::int between 1 and 12 then (${p}->>'${f}')::int end)`;
// The numeric-id rule's SQL copy (model/identifiers.ts COMPANY_ID_SQL_PATTERN, tied to the
// TypeScript rule by test/integration/lake/companyIdRule.test.ts).
export const companyIdOrNull = (p: string) => `(case when ${p}->>'companyId' ~ '${COMPANY_ID_SQL_PATTERN}' then ${p}->'companyId' end)`;
const companyId = companyIdOrNull;
/**
 * The position rules (migration 20261122000100_lake_rules) read only `positions` of their jsonb:
 * `r.pr` is that jsonb, built once per row in HIT_FIELDS (offset 0 keeps the sub-query whole, so
 * it is not rebuilt for each of the rules' many uses).
 */
const CURRENT = 'lake_current_position(r.pr)';
const PREVIOUS = 'lake_previous_position(r.pr)';
const PAST = '(r.positions->(page.ordinal::int))';

/** Extra objects of the relationship hits, from `r` (HIT_FIELDS) and, for past roles, the ordinal of the position row (`page.ordinal`). */
const EXTRAS = {
  job_change: `json_build_object(
      'previous_company', ${PREVIOUS}->'companyName', 'previous_company_id', ${companyId(PREVIOUS)}, 'previous_title', ${PREVIOUS}->'title',
      'new_company', ${CURRENT}->'companyName', 'new_company_id', ${companyId(CURRENT)}, 'new_title', ${CURRENT}->'title',
      'started_year', ${year(CURRENT, 'startYear')}, 'started_month', ${month(CURRENT, 'startMonth')})`,
  joined: `json_build_object('title', ${CURRENT}->'title', 'start_year', ${year(CURRENT, 'startYear')},
      'start_month', ${month(CURRENT, 'startMonth')})`,
  past_role: `json_build_object('title', ${PAST}->'title', 'company_name', ${PAST}->'companyName',
      'start_year', ${year(PAST, 'startYear')}, 'start_month', ${month(PAST, 'startMonth')},
      'end_year', ${year(PAST, 'endYear')}, 'end_month', ${month(PAST, 'endMonth')})`,
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

/**
 * The total of a list of persons: its matches counted up to `bound` + 1 (pages.ts boundedCount).
 * On the distributed layout the count is pushed down to the shards: each counts its own matches
 * up to bound + 1 and sends one number, and the coordinator adds them (without it, each shard sends
 * up to bound + 1 rows to be counted on the coordinator). The sum is exact up to the bound, and
 * above it whenever the matches are (the relation is then `gte` either way). Citus pushes a
 * sub-query with a LIMIT down only under `citus.subquery_pushdown`, a setting it keeps for this
 * and warns about (it skips the planner's checks that a sub-query may run shard by shard): it is set
 * for this one statement, whose matches are the page query's own conditions, which Citus plans
 * shard by shard without it (joins on the person id, reference tables); docs/scale-out.md. A Citus
 * without the setting counts on the coordinator, as before.
 */
export async function countMatches(db: Knex, matches: Knex.QueryBuilder, bound: number): Promise<ReturnType<typeof totalOf>> {
  if (!(await hasCountPushdown(db))) return totalOf((await boundedCount(db, matches, bound)) as { count: number }[], bound);
  const count = await db.transaction(async (trx) => {
    // client_min_messages first: the setting's own warning would otherwise reach the log each time.
    await trx.raw('set local client_min_messages = warning; set local citus.subquery_pushdown = on');
    // The outer LIMIT is the condition under which Citus pushes the sub-query's LIMIT down.
    return (await boundedCount(trx, matches, bound).limit(1)) as { count: number }[];
  });
  return totalOf(count, bound);
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
  const [rows, total] = await Promise.all([rowsQuery as Promise<(PageRow & Record<string, unknown>)[]>, countMatches(db, matches, bound)]);
  const split = splitPage(rows, order, page);
  return { rows: await hitsOf<T>(db, split.rows, extra), next: split.next, ...total };
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

/**
 * The hits of one page, in the page's order; records are read for these rows only. The rows are
 * fetched with `id = any(...)` and the position row joined on the person id (the distribution
 * column on Citus, where persons and person_positions are co-located), then put in the page's order
 * here: a join on `unnest(...)` is not a join a distributed planner pushes down to the shards.
 */
async function hitsOf<T>(db: Knex, page: PageRow[], extra?: HitExtra): Promise<T[]> {
  if (!page.length) return [];
  const hit = extra ? `${HIT}::jsonb || jsonb_build_object('${extra}', ${EXTRAS[extra]})` : HIT;
  const ids = page.map((r) => r.id);
  // The page's rows (`page`), then the hits built from them. Citus refuses a table function that
  // is not immutable (json_to_record is stable) in a query over the shards ("Only immutable
  // functions can be used as a table expressions in a multi-shard query"): on the distributed
  // layout the CTE is materialized, so the shards only read the rows by id (the position row
  // joined on the distribution column) and json_to_record runs on the coordinator over their
  // result. On one PostgreSQL it is inlined: the plan of a single query, as fast (a materialized
  // CTE cost about a tenth more for a page of 100 at 1M).
  const materialized = (await hasIdentifierTable(db)) ? 'materialized' : 'not materialized';
  const { rows } = await db.raw(
    `with page as ${materialized} (
       select persons.id, persons.record, persons.fetched_at_text, pp.ordinal
       from persons
       left join person_positions pp on pp.person_id = persons.id
         and pp.ordinal = (?::int[])[array_position(?::uuid[], persons.id)]
       where persons.id = any(?::uuid[]))
     select page.id, ${hit} as hit
     from page
     cross join lateral ${HIT_FIELDS(extra !== undefined)}`,
    [page.map((r) => r.ordinal ?? null), ids, ids] as Knex.RawBinding[],
  );
  return inPageOrder(ids, rows as { id: string; hit: T }[]);
}

/** `rows` (each with its id) in the order of `ids`; ids without a row are left out. */
export function inPageOrder<T>(ids: readonly string[], rows: readonly { id: string; hit: T }[]): T[] {
  const byId = new Map(rows.map((r) => [r.id.toLowerCase(), r.hit]));
  return ids.flatMap((id) => (byId.has(id.toLowerCase()) ? [byId.get(id.toLowerCase()) as T] : []));
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

