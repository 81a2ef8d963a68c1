import { requestQuery } from '../../src/http/query';
import type { AppContext } from '../../src/http/state';

// Koa's own parser (what ctx.query returns), to compare with.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const koaParse = (require('koa/lib/search-params') as { parse(text: string): Record<string, unknown> }).parse;

/** A context whose querystring is `text` and whose ctx.query is Koa's parse of it (the fallback). */
const ctx = (text: string) => ({ querystring: text, get query() { return koaParse(text); } }) as unknown as AppContext;

describe('requestQuery', () => {
  const cases = [
    '', 'username=jane-doe', 'a=1&b=2', 'a=1&a=2&a=3', 'a=1&b=2&a=3', 'a', 'a=', '=x', '&&a=1&&', 'a==b', 'a=b=c',
    'toString=1', 'constructor=x&constructor=y', 'hasOwnProperty=1', '__proto__=1', 'a=%41', 'a=b+c', '?a=1', 'a=1?b',
    'per_page=10&page=2&title=engineer', 'a.b~c=d!e*f(g)', 'x=1&X=2', 'a=ü', 'a=1&b&c=&d=4',
  ];
  it.each(cases)('gives what Koa gives for %p', (text) => {
    const ours = requestQuery(ctx(text));
    const koa = koaParse(text);
    expect(ours).toEqual(koa);
    expect(Object.keys(ours)).toEqual(Object.keys(koa));
    expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(koa));
  });

  it('gives what Koa gives on 2,000 random query strings', () => {
    const alphabet = ['a', 'b', 'A', '0', '-', '_', '.', '=', '&', '&', '=', '%20', '+', '~', '!', '*', "'", '(', ':', '/', '?', 'é'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: Math.floor(next() * 14) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      expect([text, requestQuery(ctx(text))]).toEqual([text, koaParse(text)]);
    }
  });
});
