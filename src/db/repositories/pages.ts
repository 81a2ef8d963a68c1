/**
 * The page a list query is asked for, and what it answers: plain values, shared by every list.
 *
 * Two ways to ask for a page. By offset (`page`/`per_page` of the contract): `offset` rows are
 * skipped. By keyset (`cursor`): `after` is the sort key of the last row of the previous page, and
 * the page starts after it, so a deep page costs what page 1 costs and rows inserted or deleted
 * elsewhere in the order do not shift it. Either way the page query reads one row more than the
 * page to know whether a next page exists, and answers the sort key of the page's last row (`next`).
 *
 * The sort keys travel as text (each term's `::text`, read back with `::type`), so timestamps keep
 * their microseconds and ranks (real) their exact value.
 */
import type { Knex } from 'knex';

export type SortKey = (string | null)[];

export interface Page {
  limit: number;
  offset: number;
  /** The sort key the page starts after (keyset paging); `offset` is then 0. */
  after?: SortKey;
}

export interface ListResult<T> {
  rows: T[];
  /** Matches, counted up to TOTAL_BOUND + 1. */
  total: number;
  /** `eq`: `total` is exact; `gte`: there are at least `total` matches. */
  totalRelation: 'eq' | 'gte';
  /** Sort key of the page's last row when another page follows, else null. */
  next: SortKey | null;
}

/**
 * Counting stops here: an exact total of tens of thousands of matches costs a scan of all of them
 * on every page, whatever the page size (issue 14). Above it, `total` is this bound with `gte`.
 */
export const TOTAL_BOUND = 10_000;

/**
 * The bound of people searches with a full-text filter (`query`, `title`). Their matches come from
 * a GIN index, which cannot be read without the table (no index-only scan) and yields its
 * candidates in no useful order, so every counted match costs a visit of its row in the table:
 * 10,001 of them took about 175 ms on a 1M lake, 1,001 take a tenth of that (issue 14).
 */
export const TEXT_TOTAL_BOUND = 1_000;

/** One term of a list's order. The last term of every order is unique (an id). */
export interface OrderTerm {
  /** SQL expression; `bindings` fill its `?` placeholders. */
  sql: string;
  bindings?: unknown[];
  dir: 'asc' | 'desc';
  /** The SQL type to read a key back with (`?::type`). */
  type: string;
  /** The column may be null; nulls sort last, whatever the direction. */
  nullable?: boolean;
}

export const term = (sql: string, dir: 'asc' | 'desc', type: string, more: Partial<OrderTerm> = {}): OrderTerm => ({
  sql,
  dir,
  type,
  ...more,
});

const bindingsOf = (t: OrderTerm) => (t.bindings ?? []) as Knex.RawBinding[];

export function orderBy(db: Knex, order: OrderTerm[]): Knex.Raw {
  const sql = order.map((t) => `${t.sql} ${t.dir}${t.nullable ? ' nulls last' : ''}`).join(', ');
  return db.raw(sql, order.flatMap(bindingsOf));
}

/** The select list of the sort key: k0, k1, ... as text. */
export function keyColumns(db: Knex, order: OrderTerm[]): Knex.Raw[] {
  return order.map((t, i) => db.raw(`(${t.sql})::text as k${i}`, bindingsOf(t)));
}

export function keyOf(row: Record<string, unknown>, order: OrderTerm[]): SortKey {
  return order.map((_, i) => (row[`k${i}`] ?? null) as string | null);
}

/** A key that does not fit the order (a cursor of another list): the caller answers 400. */
export class SortKeyMismatch extends Error {}

/**
 * Rows strictly after `key` in `order`: for terms t1..tn, t1 after k1, or t1 = k1 and (t2 after k2,
 * or ...). A leading non-null term also gets the bound `t1 >= k1` (or <=), which an index on the
 * order can use as a range start.
 */
export function afterKey(db: Knex, order: OrderTerm[], key: SortKey): Knex.Raw {
  if (key.length !== order.length || key.some((k) => k !== null && typeof k !== 'string')) throw new SortKeyMismatch();
  key.forEach((k, i) => {
    if (k === null && !order[i].nullable) throw new SortKeyMismatch();
  });
  const parts: { sql: string; bindings: unknown[] }[] = [];
  const after = (t: OrderTerm, k: string | null) => {
    const op = t.dir === 'asc' ? '>' : '<';
    if (k === null) return { sql: 'false', bindings: [] };
    return {
      sql: `(${t.sql} ${op} ?::${t.type}${t.nullable ? ` or ${t.sql} is null` : ''})`,
      bindings: t.nullable ? [...bindingsOf(t), k, ...bindingsOf(t)] : [...bindingsOf(t), k],
    };
  };
  const equal = (t: OrderTerm, k: string | null) =>
    k === null ? { sql: `${t.sql} is null`, bindings: bindingsOf(t) } : { sql: `${t.sql} = ?::${t.type}`, bindings: [...bindingsOf(t), k] };
  let rest = after(order[order.length - 1], key[key.length - 1]);
  for (let i = order.length - 2; i >= 0; i--) {
    const a = after(order[i], key[i]);
    const e = equal(order[i], key[i]);
    rest = { sql: `(${a.sql} or (${e.sql} and ${rest.sql}))`, bindings: [...a.bindings, ...e.bindings, ...rest.bindings] };
  }
  parts.push(rest);
  const first = order[0];
  if (!first.nullable && order.length > 1) {
    parts.unshift({ sql: `${first.sql} ${first.dir === 'asc' ? '>=' : '<='} ?::${first.type}`, bindings: [...bindingsOf(first), key[0]] });
  }
  return db.raw(parts.map((p) => p.sql).join(' and '), parts.flatMap((p) => p.bindings) as Knex.RawBinding[]);
}

/**
 * The page query of a list: `base` is the filtered rows (selecting the row's identity), extended
 * with the sort key, the order, the keyset or offset, and one row more than the page.
 */
export function pageQuery(db: Knex, base: Knex.QueryBuilder, order: OrderTerm[], page: Page): Knex.QueryBuilder {
  const qb = base.select(keyColumns(db, order)).orderByRaw(orderBy(db, order)).limit(page.limit + 1);
  if (page.after) qb.whereRaw(afterKey(db, order, page.after));
  else if (page.offset) qb.offset(page.offset);
  return qb;
}

/** Splits the page query's rows (one more than the page) into the page and the next key. */
export function splitPage<R extends Record<string, unknown>>(rows: R[], order: OrderTerm[], page: Page): { rows: R[]; next: SortKey | null } {
  if (rows.length <= page.limit) return { rows, next: null };
  const kept = rows.slice(0, page.limit);
  return { rows: kept, next: keyOf(kept[kept.length - 1], order) };
}

/** Counts the rows of `matches` (one row per match, any columns) up to `bound` + 1. */
export function boundedCount(db: Knex, matches: Knex.QueryBuilder, bound = TOTAL_BOUND): Knex.QueryBuilder {
  return db.count({ count: '*' }).from(matches.limit(bound + 1).as('matches'));
}

export function totalOf(count: { count: number | string }[], bound = TOTAL_BOUND): { total: number; totalRelation: 'eq' | 'gte' } {
  const n = Number(count[0].count);
  return n > bound ? { total: bound, totalRelation: 'gte' } : { total: n, totalRelation: 'eq' };
}
