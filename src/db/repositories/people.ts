/**
 * SQL of the people operations' lists: searchPeople, listSimilarPeople, listJobChanges (colleagues
 * are the staff of the subject's company: companies.ts listCompanyStaff). Lists are answered by
 * personHits.ts; the derived columns they filter on are described there.
 */
import type { Knex } from 'knex';
import type { PersonKeyColumn } from './personRecords';
import { countMatches, listPersons, hasSchool, pageAfterTotal, ID_ORDER, STARTED_ORDER, type PersonSearchHit } from './personHits';
import {
  pageQuery,
  SortKeyMismatch,
  term,
  TEXT_TOTAL_BOUND,
  TOTAL_BOUND,
  type ListResult,
  type OrderTerm,
  type Page,
} from './pages';

export interface SubjectRow {
  id: string;
  current_company_id: string | null;
  seniority: string | null;
  current_company_industry: string | null;
  geo_country_code: string | null;
}

/** The person a relationship list is about, by one of its lookup columns. */
export async function findSubject(db: Knex, column: PersonKeyColumn, value: string): Promise<SubjectRow | undefined> {
  return db('persons')
    .where(column, value)
    .first('id', db.raw('current_company_id::text as current_company_id'), 'seniority', 'current_company_industry', 'geo_country_code');
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

/** A position that has ended (not current) matching `condition` on `x`. */
const workedAt = (condition: string, value: string) => (sub: Knex.QueryBuilder) =>
  sub.from('person_positions as x').whereRaw(`x.person_id = p.id and not x.is_current and ${condition}`, [value]);

/** Relevance: the order of a search with `query` and at most TEXT_TOTAL_BOUND matches. */
const rankOrder = (query: string): OrderTerm[] => [
  term(`ts_rank(p.search_words, websearch_to_tsquery('simple', ?))`, 'desc', 'real', { bindings: [query] }),
  term('p.id', 'asc', 'uuid'),
];

/**
 * For the one statement after it in its transaction: no bitmap scan and no sequential scan, so the
 * page is read by walking an index in the list's order (the full-text condition, which only a GIN
 * index answers, becomes a filter on the walked rows). See searchPeople. `SET LOCAL`, not
 * `set_config()`: Citus passes SET LOCAL on to the workers' transactions (with
 * citus.propagate_set_commands = 'local', which `enrich distribute` sets), never a set_config() call.
 */
export const WALK_IN_ORDER = 'set local enable_bitmapscan = off; set local enable_seqscan = off';

/**
 * People search. Without `query`, in id order (personHits.ts ID_ORDER: a key the refresh never
 * moves, so a cursor walk sees every row exactly once; the primary key walked until the page is
 * full, or an index ending in the id for the common filters, migration 20261204000100). With
 * `query`, the matches are counted first (up to TEXT_TOTAL_BOUND, as with `title`), and the count
 * chooses the order (issue 14):
 *
 * - up to TEXT_TOTAL_BOUND matches: by relevance (ts_rank), which ranks every match, so at most
 *   TEXT_TOTAL_BOUND rows are visited and sorted;
 * - more: ranking would visit every match (31,000 for a company name on a 1M lake: 760 ms), so
 *   they come in id order, walking the primary key until the page is full:
 *   with more than TEXT_TOTAL_BOUND matches in a lake of n, a page of k costs about k * n /
 *   TEXT_TOTAL_BOUND row visits at worst. The page query runs under WALK_IN_ORDER: the planner's
 *   estimate for words that occur together (a company's name) is far too low (200 estimated for
 *   4,000 on a 100k lake), and would have it collect and sort every match instead.
 */
export async function searchPeople(db: Knex, c: PersonCriteria, page: Page): Promise<ListResult<PersonSearchHit>> {
  const where = (qb: Knex.QueryBuilder) => {
    if (c.query !== undefined) qb.whereRaw(`p.search_words @@ websearch_to_tsquery('simple', ?)`, [c.query]);
    if (c.titleWords) {
      // Any word, as a whole word of the title: one tsquery `w1 | w2 ...` over the title's words.
      const words = c.titleWords.map(() => `plainto_tsquery('simple', ?)`).join(' || ');
      qb.whereRaw(`p.title_words @@ (${words})`, c.titleWords);
    }
    if (c.companyId !== undefined) qb.where('p.current_company_id', c.companyId);
    else if (c.company !== undefined) qb.whereRaw('lower(p.current_company) = lower(?)', [c.company]);
    if (c.countries) qb.whereIn('p.geo_country_code', c.countries);
    if (c.city !== undefined) qb.whereRaw('lower(p.geo_city) = lower(?)', [c.city]);
    if (c.industries) qb.whereRaw('lower(p.current_company_industry) = any(array(select lower(x) from unnest(?::text[]) x))', [c.industries]);
    if (c.seniorities) qb.whereIn('p.seniority', c.seniorities);
    if (c.skills) qb.whereRaw('p.skills @> array(select lower(x) from unnest(?::text[]) x)', [c.skills]);
    const { school, pastCompanyId, pastCompany } = c;
    if (school !== undefined) qb.whereExists(hasSchool(school));
    if (pastCompanyId !== undefined) qb.whereExists(workedAt('x.company_id = ?', pastCompanyId));
    else if (pastCompany !== undefined) qb.whereExists(workedAt('lower(x.company_name) = lower(?)', pastCompany));
  };
  const bound = c.query !== undefined || c.titleWords !== undefined ? TEXT_TOTAL_BOUND : TOTAL_BOUND;
  if (c.query === undefined) return listPersons(db, { where, order: ID_ORDER, totalBound: bound }, page);

  const base = (conn: Knex) => {
    const qb = conn.from('persons as p');
    where(qb);
    return qb;
  };
  // A cursor's key starts with the order its first page was given in ('rank' or 'id'), and
  // goes on in it whatever the count says now. An 'id' cursor comes from a first page that
  // counted more than `bound` matches: its pages answer that total (bound, gte) without counting
  // again, as a scroll keeps the total of the search it continues (Elasticsearch). The count was
  // the largest statement of such a page: above the bound the GIN index yields every match before
  // any is counted (31,484 for a company's name at 1M: 190-315 ms at load 15), where the page
  // itself is an index-only walk of a few hundred rows (issue 35).
  if (page.after && page.after[0] !== 'rank' && page.after[0] !== 'id') throw new SortKeyMismatch();
  const total =
    page.after?.[0] === 'id'
      ? ({ total: bound, totalRelation: 'gte' } as const)
      : await countMatches(db, base(db).select(db.raw('1')), bound);
  const ranked = page.after ? page.after[0] === 'rank' : total.totalRelation === 'eq';
  const inner: Page = { ...page, after: page.after?.slice(1) };
  const order = ranked ? rankOrder(c.query) : ID_ORDER;
  const rows = ranked
    ? pageQuery(db, base(db).select('p.id'), order, inner)
    : db.transaction(async (trx) => {
        await trx.raw(WALK_IN_ORDER);
        return pageQuery(trx, base(trx).select('p.id'), order, inner);
      });
  const result = await pageAfterTotal<PersonSearchHit>(db, rows, order, inner, total);
  return { ...result, next: result.next && [ranked ? 'rank' : 'id', ...result.next] };
}

/** Same band, industry and country as the subject; a criterion the subject has no value for is left out. */
export function listSimilarPeople(db: Knex, subject: SubjectRow, page: Page): Promise<ListResult<PersonSearchHit>> {
  return listPersons(
    db,
    {
      where: (qb) => {
        if (subject.current_company_industry !== null) qb.where('p.current_company_industry', subject.current_company_industry);
        if (subject.geo_country_code !== null) qb.where('p.geo_country_code', subject.geo_country_code);
        if (subject.seniority !== null) qb.where('p.seniority', subject.seniority);
        qb.whereNot('p.id', subject.id);
      },
      order: ID_ORDER,
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
        else if (opts.previousCompany !== undefined) qb.whereRaw('lower(p.previous_company) = lower(?)', [opts.previousCompany]);
      },
      order: STARTED_ORDER,
      extra: 'job_change',
    },
    page,
  );
}

