/**
 * ETag and If-None-Match for the single-record reads (getPerson, getCompany and their checks).
 *
 * The validator is strong and covers exactly the answer's `data` bytes: a SHA-256 of the JSON text
 * that the edge splices into the envelope, so two answers share an ETag only when their records are
 * byte-identical (the envelope's quotas and request id differ on every answer and are not part of
 * the representation a client caches). A match answers 304 with an empty body: the edge still
 * writes the request id and the rate-limit headers, and Koa drops the body of a 304.
 */
import { hash } from 'node:crypto';
import type { HandlerResult } from './handlers/types';
import { RawJson } from './rawJson';
import type { AppContext } from './state';

/**
 * `"<base64url SHA-256>"`: quoted as HTTP requires (RFC 9110 §8.8.3). One `crypto.hash` call: no
 * Hash object and its update/digest steps on every lookup (the same digest).
 */
export function entityTag(text: string): string {
  return `"${hash('sha256', text, 'base64url')}"`;
}

/**
 * If-None-Match's rule (RFC 9110 §13.1.2): `*` matches any current representation; otherwise a
 * list of tags compared weakly (a `W/` prefix ignored on either side).
 */
export function noneMatchHits(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const value = header.trim();
  if (value === '*') return true;
  for (const part of value.split(',')) {
    let candidate = part.trim();
    if (candidate.startsWith('W/')) candidate = candidate.slice(2);
    if (candidate === tag) return true;
  }
  return false;
}

/** The answer to a record read: 304 when the caller holds the current tag, else the record. */
export function conditionalAnswer(ctx: AppContext, dataText: string): HandlerResult {
  const tag = entityTag(dataText);
  const header = ctx.get('If-None-Match');
  if (noneMatchHits(header || undefined, tag)) return { status: 304, body: {}, headers: { ETag: tag } };
  return { body: { data: new RawJson(dataText) }, headers: { ETag: tag } };
}
