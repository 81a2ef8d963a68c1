/**
 * domain/text.ts, the one rule for text the database cannot hold: U+0000 and lone UTF-16
 * surrogates, wherever they are in a value (strings and keys, nested), and nothing else (a
 * surrogate pair, an emoji, other control characters are stored as they are).
 */
import { hasUnstorableText, mayHoldUnstorableEscape, unstorableReason, unstorableText } from '../../src/domain/text';

describe('text the database cannot hold', () => {
  it('finds U+0000 and lone surrogates, high or low, at the start, in the middle and at the end', () => {
    for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udbff', '\udc00y', 'a\udfffb', '😀\udc00', '\ud83d\ud83d\ude00x\ud800']) {
      expect({ bad, found: hasUnstorableText(bad) }).toEqual({ bad, found: true });
    }
    for (const good of ['', 'plain', '😀', 'a😀b\u0001\u001f\u2028', '\ud83d\ude00\ud83d\ude00']) {
      expect({ good, found: hasUnstorableText(good) }).toEqual({ good, found: false });
    }
  });

  it('names the path and the character, for values and keys, nested', () => {
    expect(unstorableText({ a: [{ b: 'x' }, { b: 'y\ud800' }] })).toEqual({ path: 'a[1].b', character: 'a lone surrogate (U+D800)' });
    expect(unstorableText({ a: { ['k\u0000']: 1 } })).toEqual({ path: 'a.k\u0000', character: 'the NUL character (U+0000)' });
    expect(unstorableText('\udc00')).toEqual({ path: '(value)', character: 'a lone surrogate (U+DC00)' });
    expect(unstorableText({ fine: ['😀', 1, null, true] })).toBeUndefined();
    expect(unstorableReason({ path: 'headline', character: 'a lone surrogate (U+D800)' })).toBe(
      'headline contains a lone surrogate (U+D800), which the database cannot store',
    );
  });

  it('the cheap filter on JSON text lets every such value through to the walk', () => {
    for (const value of [{ h: 'a\u0000' }, { h: '\ud800' }, { h: '\udc00' }, { h: '😀\udfff' }]) {
      expect(mayHoldUnstorableEscape(JSON.stringify(value))).toBe(true);
    }
    expect(mayHoldUnstorableEscape(JSON.stringify({ h: 'plain 😀 text' }))).toBe(false);
  });
});
