/**
 * Paging and the small value rules shared by every list operation. The repositories take the page
 * as plain values (db/repositories/pages.ts); the request and body shapes live here.
 */
import type { ListResult, Page } from '../db/repositories/pages';

export interface PageRequest {
  page?: number;
  per_page?: number;
}

export interface ListBody<T> {
  results: T[];
  total: number;
  page: number;
  per_page: number;
}

/** Defaults of the contract's PageNumber / PageSize schemas; bounds are enforced by the contract. */
const DEFAULT_PAGE = 1;
const DEFAULT_PER_PAGE = 25;

export function pageOf(req: PageRequest): Page & { page: number; per_page: number } {
  const page = req.page ?? DEFAULT_PAGE;
  const perPage = req.per_page ?? DEFAULT_PER_PAGE;
  return { page, per_page: perPage, limit: perPage, offset: (page - 1) * perPage };
}

export function listBody<T>(result: ListResult<T>, paging: { page: number; per_page: number }): ListBody<T> {
  return { results: result.rows, total: result.total, page: paging.page, per_page: paging.per_page };
}

export const emptyList = <T>(paging: { page: number; per_page: number }): ListBody<T> =>
  listBody<T>({ rows: [], total: 0 }, paging);

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

/** Text filters match exactly but case-insensitively. */
export function lowerText(v: string): string;
export function lowerText(v: string | undefined): string | undefined;
export function lowerText(v: string | undefined) {
  return v?.toLowerCase();
}
export const lowerAll = (v: string | string[] | undefined) => asArray(v)?.map((x) => x.toLowerCase());
export const upperAll = (v: string | string[] | undefined) => asArray(v)?.map((x) => x.toUpperCase());
