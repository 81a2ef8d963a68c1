/**
 * How every list of people is answered (search and the relationship endpoints of people, companies
 * and institutions): one page query and one count query over the same conditions, run side by side,
 * then the hits of the page's rows built in SQL from the stored record, so their fields are the
 * record's own values. The derived columns and their rules: migrations 20261121000400_search and
 * 20261122000100_lake_rules.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import type { ListResult, Page } from './pages';

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
 * A list over `persons p`: `where` narrows it, `orderBy` is the full deterministic order (it must
 * end with a unique column). The hit (and the extra object, if any) is computed only for the rows
 * of the page. `count` replaces the default count when a cheaper equivalent exists.
 */
export interface ListSpec {
  where: (qb: Knex.QueryBuilder) => void;
  orderBy: Knex.Raw;
  extra?: HitExtra;
  count?: () => Knex.QueryBuilder;
}

type PageRow = { id: string; ordinal?: number };

export async function listPersons<T = PersonSearchHit>(db: Knex, spec: ListSpec, page: Page): Promise<ListResult<T>> {
  const base = () => {
    const qb = db.from('persons as p');
    spec.where(qb);
    return qb;
  };
  const pageQuery = base().select('p.id').orderByRaw(spec.orderBy).limit(page.limit).offset(page.offset);
  return pageWithTotal(db, pageQuery, spec.count?.() ?? base().count({ count: '*' }), spec.extra);
}

export async function pageWithTotal<T>(
  db: Knex,
  pageQuery: Knex.QueryBuilder,
  countQuery: Knex.QueryBuilder,
  extra?: HitExtra,
): Promise<ListResult<T>> {
  const [ids, count] = await Promise.all([pageQuery as Promise<PageRow[]>, countQuery as Promise<{ count: number }[]>]);
  return { rows: await hitsOf<T>(db, ids, extra), total: Number(count[0].count) };
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
export const STAFF_ORDER = 'p.seniority_rank, p.full_name collate "C", p.id';
export const RECENT_ORDER = 'p.fetched_at desc, p.id';
export const STARTED_ORDER = 'p.current_started_on desc, p.id';


/** Has an education at the school (lower-cased name). */
export const hasSchool = (school: string) => (sub: Knex.QueryBuilder) =>
  sub.from('person_educations as e').whereRaw('e.person_id = p.id and lower(e.school_name) = ?', [school]);

