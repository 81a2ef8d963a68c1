/**
 * The one rule for what a span may carry out of the process: no query string (the API's lookups
 * put usernames, emails and names there), no value inside SQL text. Applied by otel.ts to every
 * span as it ends, whatever instrumentation set the attribute; pure, so a unit test pins it.
 */

/** Attributes holding a URL or a request target: their query string (and fragment) is cut off. */
const URL_ATTRIBUTES = ['url.full', 'http.url', 'http.target', 'url.original'];
/** Attributes that are nothing but a query string: removed. */
const QUERY_ATTRIBUTES = ['url.query', 'http.query'];
/** Attributes holding SQL text: quoted literals replaced by `?` (values are sent as parameters, but a
 * few one-round-trip statements of db/literals.ts write them into the text). */
const SQL_ATTRIBUTES = ['db.statement', 'db.query.text'];

export function stripQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

/**
 * `'it''s'`, `E'\\x41'` and `'\x..'::bytea` become `?`; identifiers in double quotes stay.
 * Memoised: a traced service runs the same few hundred statement texts over and over (their values
 * are parameters), and the two expressions over a long statement were a measurable part of each
 * traced request; texts seen once (a bulk insert with literals) only cycle through the bounded cache.
 */
export function stripSqlLiterals(sql: string): string {
  const known = scrubbed.get(sql);
  if (known !== undefined) return known;
  const clean = sql.replace(/[eE]?'(?:[^']|'')*'/g, '?').replace(/\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\1\$/g, '?');
  if (sql.length <= MEMO_MAX_TEXT) {
    if (scrubbed.size >= MEMO_MAX_ENTRIES) scrubbed.clear();
    // Keyed by the raw text and by the clean one (scrubbing is idempotent): the scrubbing processor
    // meets the clean text again when a span's attribute was scrubbed at its start (pgSpans.ts).
    scrubbed.set(sql, clean);
    scrubbed.set(clean, clean);
  }
  return clean;
}

const scrubbed = new Map<string, string>();
const MEMO_MAX_ENTRIES = 2000;
const MEMO_MAX_TEXT = 20_000;

export function scrubAttributes(attributes: Record<string, unknown>): void {
  for (const key of URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'string') attributes[key] = stripQuery(value);
  }
  for (const key of QUERY_ATTRIBUTES) delete attributes[key];
  for (const key of SQL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'string') attributes[key] = stripSqlLiterals(value);
  }
}

/** The parts of an SDK span that scrubSpan changes (structural, so the rule needs no SDK type). */
export interface ScrubbableSpan {
  attributes: Record<string, unknown>;
  events: { attributes?: Record<string, unknown> }[];
  status: { message?: string };
}

/**
 * The attributes as above; and an error's message and stack, which the instrumentations copy from
 * the error (a PostgreSQL message quotes the duplicate key's value, an undici one the URL), are
 * dropped from exception events and the status: the error's type stays.
 */
export function scrubSpan(span: ScrubbableSpan): void {
  scrubAttributes(span.attributes);
  for (const event of span.events) {
    if (!event.attributes) continue;
    delete event.attributes['exception.message'];
    delete event.attributes['exception.stacktrace'];
  }
  if (span.status.message !== undefined) span.status.message = undefined;
}
