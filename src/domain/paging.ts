/**
 * Paging and the small value rules shared by every list operation. The repositories take the page
 * as plain values (db/repositories/pages.ts: offset or keyset, and the bounded total); the request
 * and body shapes, and the cursor, live here.
 *
 * A cursor is base64url JSON {k, h}: k the sort key of the last row of the page before (as the
 * repository answered it), h a digest of the operation, its filters and k. The digest binds a
 * cursor to its query, so one from another operation or other filters, or an altered one, is a 400
 * INVALID_CURSOR instead of a silently wrong page. It holds no secret: cursors survive restarts and
 * a client can only ever page through its own query with them.
 */
import { createHash } from 'node:crypto';
import { classifyDatabaseError } from '../db/errors';
import { SortKeyMismatch, TOTAL_BOUND, type ListResult, type Page, type SortKey } from '../db/repositories/pages';
import { AppError, validationError } from './errors';

export interface PageRequest {
  page?: number;
  per_page?: number;
  cursor?: string;
}

export interface ListBody<T> {
  results: T[];
  total: number;
  total_relation: 'eq' | 'gte';
  page?: number;
  per_page: number;
  next_cursor: string | null;
}

/** Defaults of the contract's PageNumber / PageSize schemas; bounds are enforced by the contract. */
const DEFAULT_PAGE = 1;
const DEFAULT_PER_PAGE = 25;

/**
 * How deep offset paging reaches: a page whose last row would lie past the 10,000th result
 * (`page` × `per_page` > OFFSET_REACH) is a 400 PAGE_TOO_DEEP that points to the cursor. An offset
 * page costs a walk over every row it skips (99,900 index entries for page 1000 × 100: 63-129 ms
 * p95 on a 1M lake, issue 35), a cursor page costs what page 1 costs; Elasticsearch
 * (`index.max_result_window`), People Data Labs and Crustdata bound offset paging the same way and
 * send exports to a scroll token or cursor. The same number as TOTAL_BOUND: offset pages reach
 * exactly as far as `total` is exact.
 */
export const OFFSET_REACH = TOTAL_BOUND;

export const pageTooDeep = (page: number, perPage: number) =>
  new AppError(
    'PAGE_TOO_DEEP',
    `page: page × per_page may be at most ${OFFSET_REACH.toLocaleString('en-US')} (asked: ${page} × ${perPage} = ${(page * perPage).toLocaleString('en-US')}); ` +
      'to read further, follow next_cursor: send it as cursor with the same filters and without page (no depth limit)',
  );

/** What a page request resolves to: the repository's page, and what the body and next cursor need. */
export interface Paging extends Page {
  page?: number;
  per_page: number;
  /** Digest input naming the query (operation and filters), without the paging fields. */
  scope: string;
}

const PAGING_FIELDS = new Set(['page', 'per_page', 'cursor']);

/** Stable JSON (object keys sorted), so equal filters give the same scope whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => v !== undefined && !PAGING_FIELDS.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const digest = (scope: string, key: SortKey) =>
  createHash('sha256').update(scope).update('\0').update(JSON.stringify(key)).digest('base64url').slice(0, 22);

export const invalidCursor = (why: string) =>
  new AppError('INVALID_CURSOR', `cursor: ${why}; start again from the first page without a cursor`);

export function encodeCursor(scope: string, key: SortKey): string {
  return Buffer.from(JSON.stringify({ k: key, h: digest(scope, key) })).toString('base64url');
}

/** The cursor a list would answer for a row with sort key `key` (benchmarks: a deep start). */
export const cursorFor = (operation: string, filters: object, key: SortKey) => encodeCursor(`${operation}${canonical(filters)}`, key);

export function decodeCursor(scope: string, cursor: string): SortKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('malformed');
  }
  const { k, h } = (parsed ?? {}) as { k?: unknown; h?: unknown };
  if (!Array.isArray(k) || !k.length || k.some((x) => x !== null && typeof x !== 'string') || typeof h !== 'string') {
    throw invalidCursor('malformed');
  }
  if (h !== digest(scope, k as SortKey)) throw invalidCursor('it belongs to another query (other operation or filters) or was altered');
  return k as SortKey;
}

/**
 * The page a request asks for. `operation` and the request's other fields (filters, path and
 * identifier parameters) are the query a cursor is bound to.
 */
export function pageOf(req: PageRequest, operation: string, filters: object = req): Paging {
  const perPage = req.per_page ?? DEFAULT_PER_PAGE;
  const scope = `${operation}${canonical(filters)}`;
  if (req.cursor !== undefined) {
    if (req.page !== undefined) throw validationError('page: cannot be combined with cursor (a cursor already says where the page starts)');
    return { per_page: perPage, limit: perPage, offset: 0, after: decodeCursor(scope, req.cursor), scope };
  }
  const page = req.page ?? DEFAULT_PAGE;
  if (page * perPage > OFFSET_REACH) throw pageTooDeep(page, perPage);
  return { page, per_page: perPage, limit: perPage, offset: (page - 1) * perPage, scope };
}

export function listBody<T>(result: ListResult<T>, paging: Paging): ListBody<T> {
  const body: ListBody<T> = {
    results: result.rows,
    total: result.total,
    total_relation: result.totalRelation,
    per_page: paging.per_page,
    next_cursor: result.next ? encodeCursor(paging.scope, result.next) : null,
  };
  if (paging.page !== undefined) body.page = paging.page;
  return body;
}

/**
 * Runs a list query for a page and builds the body. A cursor whose digest matches but whose key
 * does not fit the list (hand-made) is refused as a cursor, not as a fault of the service.
 */
export async function listed<T>(paging: Paging, run: (page: Page) => Promise<ListResult<T>>): Promise<ListBody<T>> {
  try {
    return listBody(await run(paging), paging);
  } catch (err) {
    if (paging.after && (err instanceof SortKeyMismatch || classifyDatabaseError(err) === 'invalid_input')) {
      throw invalidCursor('its position does not fit this list');
    }
    throw err;
  }
}

export const emptyList = <T>(paging: Paging): ListBody<T> =>
  listBody<T>({ rows: [], total: 0, totalRelation: 'eq', next: null }, paging);

/**
 * First day (YYYY-MM-01) of the look-back window: the last `months` calendar months (UTC), the
 * current one included. Start dates with an unknown month are stored as January of their year.
 */
export function windowStart(months: number, now: Date = new Date()): string {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
  return start.toISOString().slice(0, 10);
}

/** A filter that takes one value or an array of them (any matches). */
export const asArray = <T>(v: T | T[] | undefined): T[] | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v : [v];

/**
 * Text filters match exactly but case-insensitively. The repositories compare lower(column) with
 * lower(value) in SQL: both sides lowered by the same function, so a value always matches its own
 * stored text whatever the database's LC_CTYPE (JavaScript's toLowerCase and PostgreSQL's lower()
 * disagree on non-ASCII letters). Values are passed through as sent.
 */
export const upperAll = (v: string | string[] | undefined) => asArray(v)?.map((x) => x.toUpperCase());
