import type { AppContext } from './state';

/**
 * Query strings made only of characters that URL decoding leaves as they are (no `%`, no `+`), and
 * without the `?` that URLSearchParams would strip from the front.
 */
const PLAIN = /^[A-Za-z0-9\-._~!$'()*,;:@/=&]*$/;

/**
 * ctx.query, parsed directly when the query string needs no decoding (the usual lookup such as
 * `username=jane-doe`): the same object Koa builds (through URLSearchParams, one property per
 * name, repeated names as arrays in order), without URLSearchParams and a property definition per
 * name. Anything else (percent escapes, `+`, a `__proto__` name) is left to Koa.
 */
export function requestQuery(ctx: AppContext): Record<string, string | string[]> {
  const text = ctx.querystring;
  if (!PLAIN.test(text)) return ctx.query as Record<string, string | string[]>;
  const query: Record<string, string | string[]> = {};
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      const name = eq === -1 || eq > end ? text.slice(start, end) : text.slice(start, eq);
      const value = eq === -1 || eq > end ? '' : text.slice(eq + 1, end);
      if (name === '__proto__') return ctx.query as Record<string, string | string[]>;
      const seen = Object.hasOwn(query, name) ? query[name] : undefined;
      if (seen === undefined) query[name] = value;
      else if (typeof seen === 'string') query[name] = [seen, value];
      else seen.push(value);
    }
    start = end + 1;
  }
  return query;
}
