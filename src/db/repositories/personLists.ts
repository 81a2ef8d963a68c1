/**
 * Every list of people the API answers (search and the relationship endpoints), as SQL over the
 * lake's derived columns and indexes (migration 20261121000400_search). A list is one page query
 * and one count query over the same conditions, run side by side.
 *
 * Hits are built in SQL from the stored record, so their fields are the record's own values.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';

export type PersonSearchHit = components['schemas']['PersonSearchHit'];

export interface Page {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  rows: T[];
  total: number;
}

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

async function pageWithTotal<T>(
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

export interface SubjectRow {
  id: string;
  current_company_id: string | null;
  seniority: string | null;
  current_company_industry: string | null;
  geo_country_code: string | null;
}

export async function findSubject(db: Knex, column: string, value: string): Promise<SubjectRow | undefined> {
  return db('persons')
    .where(column, value)
    .first('id', db.raw('current_company_id::text as current_company_id'), 'seniority', 'current_company_industry', 'geo_country_code');
}

/** Current employees per seniority_rank. */
export async function countStaffByRank(db: Knex, companyId: string): Promise<Map<number, number>> {
  const rows: { rank: number; count: number }[] = await db('persons')
    .where('current_company_id', companyId)
    .groupBy('seniority_rank')
    .select({ rank: 'seniority_rank' })
    .count({ count: '*' });
  return new Map(rows.map((r) => [Number(r.rank), Number(r.count)]));
}

/** People search, normalized by the domain (lower-cased text, upper-cased country codes). */
export interface PersonCriteria {
  query?: string;
  titleWords?: string[];
  companyId?: string;
  company?: string;
  countries?: string[];
  city?: string;
  industries?: string[];
  seniorities?: string[];
  skills?: string[];
  school?: string;
  pastCompanyId?: string;
  pastCompany?: string;
}

const hasSchool = (school: string) => (sub: Knex.QueryBuilder) =>
  sub.from('person_educations as e').whereRaw('e.person_id = p.id and lower(e.school_name) = ?', [school]);

/** A position that has ended (not current) matching `condition` on `x`. */
const workedAt = (condition: string, value: string) => (sub: Knex.QueryBuilder) =>
  sub.from('person_positions as x').whereRaw(`x.person_id = p.id and not x.is_current and ${condition}`, [value]);

export function searchPersons(db: Knex, c: PersonCriteria, page: Page): Promise<ListResult<PersonSearchHit>> {
  const where = (qb: Knex.QueryBuilder) => {
    if (c.query !== undefined) qb.whereRaw(`p.search_words @@ websearch_to_tsquery('simple', ?)`, [c.query]);
    if (c.titleWords) {
      // Any word, as a whole word of the title: one tsquery `w1 | w2 ...` over the title's words.
      const words = c.titleWords.map(() => `plainto_tsquery('simple', ?)`).join(' || ');
      qb.whereRaw(`p.title_words @@ (${words})`, c.titleWords);
    }
    if (c.companyId !== undefined) qb.where('p.current_company_id', c.companyId);
    else if (c.company !== undefined) qb.whereRaw('lower(p.current_company) = ?', [c.company]);
    if (c.countries) qb.whereIn('p.geo_country_code', c.countries);
    if (c.city !== undefined) qb.whereRaw('lower(p.geo_city) = ?', [c.city]);
    if (c.industries) qb.whereRaw('lower(p.current_company_industry) = any(?::text[])', [c.industries]);
    if (c.seniorities) qb.whereIn('p.seniority', c.seniorities);
    if (c.skills) qb.whereRaw('p.skills @> ?::text[]', [c.skills]);
    const { school, pastCompanyId, pastCompany } = c;
    if (school !== undefined) qb.whereExists(hasSchool(school));
    if (pastCompanyId !== undefined) qb.whereExists(workedAt('x.company_id = ?', pastCompanyId));
    else if (pastCompany !== undefined) qb.whereExists(workedAt('lower(x.company_name) = ?', pastCompany));
  };
  const orderBy =
    c.query !== undefined
      ? db.raw(`ts_rank(p.search_words, websearch_to_tsquery('simple', ?)) desc, p.id`, [c.query])
      : db.raw(RECENT_ORDER);
  return listPersons(db, { where, orderBy }, page);
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
      orderBy: db.raw(STAFF_ORDER),
    },
    page,
  );
}

/** Same band, industry and country as the subject; a criterion the subject has no value for is left out. */
export function listSimilar(db: Knex, subject: SubjectRow, page: Page): Promise<ListResult<PersonSearchHit>> {
  return listPersons(
    db,
    {
      where: (qb) => {
        if (subject.current_company_industry !== null) qb.where('p.current_company_industry', subject.current_company_industry);
        if (subject.geo_country_code !== null) qb.where('p.geo_country_code', subject.geo_country_code);
        if (subject.seniority !== null) qb.where('p.seniority', subject.seniority);
        qb.whereNot('p.id', subject.id);
      },
      orderBy: db.raw(RECENT_ORDER),
    },
    page,
  );
}

export function listJobChanges<T>(
  db: Knex,
  opts: { since: string; previousCompanyId?: string; previousCompany?: string },
  page: Page,
): Promise<ListResult<T>> {
  return listPersons<T>(
    db,
    {
      where: (qb) => {
        qb.where('p.changed_employer', true).where('p.current_started_on', '>=', opts.since);
        if (opts.previousCompanyId !== undefined) qb.where('p.previous_company_id', opts.previousCompanyId);
        else if (opts.previousCompany !== undefined) qb.whereRaw('lower(p.previous_company) = ?', [opts.previousCompany]);
      },
      orderBy: db.raw(STARTED_ORDER),
      extra: 'job_change',
    },
    page,
  );
}

export function listHiringSignals<T>(db: Knex, companyId: string, since: string, page: Page): Promise<ListResult<T>> {
  return listPersons<T>(
    db,
    {
      where: (qb) => qb.where('p.current_company_id', companyId).where('p.current_started_on', '>=', since),
      orderBy: db.raw(STARTED_ORDER),
      extra: 'joined',
    },
    page,
  );
}

export function listAlumni(db: Knex, school: string, page: Page): Promise<ListResult<PersonSearchHit>> {
  return listPersons(
    db,
    {
      where: (qb) => qb.whereExists(hasSchool(school)),
      orderBy: db.raw(RECENT_ORDER),
      // Education rows go with their person (on delete cascade), so they alone give the count.
      count: () =>
        db('person_educations').whereRaw('lower(school_name) = ?', [school]).countDistinct({ count: 'person_id' }),
    },
    page,
  );
}

/**
 * One row per person: their newest ended position at the company, if they do not work there now
 * (latest_past). Positions go with their person (on delete cascade), so persons is not joined.
 */
export function listPastEmployees<T>(db: Knex, companyId: string, page: Page): Promise<ListResult<T>> {
  const base = () => db('person_positions as pp').where('pp.company_id', companyId).where('pp.latest_past', true);
  const pageQuery = base()
    .select({ id: 'pp.person_id', ordinal: 'pp.ordinal' })
    .orderByRaw('pp.ended_on desc nulls last, pp.person_id')
    .limit(page.limit)
    .offset(page.offset);
  return pageWithTotal<T>(db, pageQuery, base().count({ count: '*' }), 'past_role');
}
