import { isCanonicalJson } from '../../../src/domain/lake/write/canonicalJson';
import { prepareRecord } from '../../../src/domain/lake/write/writer';
import { createWorld } from '../../../src/world';

/** The promise the initial load relies on: "canonical" only when JSON.stringify(JSON.parse(text)) is text. */
const check = (text: string) => {
  const value = JSON.parse(text) as unknown;
  const canonical = isCanonicalJson(text, value);
  if (canonical) expect(JSON.stringify(value)).toBe(text);
  return canonical;
};

describe('isCanonicalJson', () => {
  it('says yes to what JSON.stringify writes', () => {
    const values: unknown[] = [
      { a: 1, b: [1, 2.5, -3, 0, -0.25, 1e21, 123456789012345678, 5e-7], c: { d: null, e: true, f: false } },
      { s: 'quote " backslash \\ newline \n tab \t return \r backspace \b formfeed \f nul \u0000 unit \u001f del \u007f' },
      { s: 'Zoë Müller, 漢字, an emoji 😀, U+2028 \u2028', '': 'empty key', 'x:y': 'a colon in a key', ' k ': 'spaces in a key' },
      { nested: [[[]], {}, [{}], { '-1': 'a key starting with a minus' }] },
      [],
      'a bare string',
      42,
    ];
    for (const value of values) expect(check(JSON.stringify(value))).toBe(true);
  });

  it('says yes to the persons of the world (what the bench and most exports hold)', () => {
    const world = createWorld({ persons: 200, companies: 100, seed: 7, asOf: new Date('2026-11-01T00:00:00Z') });
    for (let i = 0; i < world.persons; i += 1) expect(check(JSON.stringify(world.person(i)))).toBe(true);
  });

  it('says no to every text JSON.stringify would write otherwise', () => {
    const texts = [
      '{"a": 1}', // whitespace outside strings
      ' {"a":1}',
      '{"a":1}\t',
      '{\n"a":1}',
      '{"a":1.0}', // numbers not written back as they are
      '{"a":1e2}',
      '{"a":1E+21}',
      '{"a":-0}',
      '{"a":0.10}',
      '{"a":12345678901234567890}',
      '{"a":"\\/"}', // escapes JSON.stringify does not write
      '{"a":"\\u0041"}',
      '{"a":"\\u000a"}',
      '{"a":"\\u001F"}',
      '{"a":"\\ud83d\\ude00"}',
      '{"a":"\\ud800"}', // a lone surrogate, escaped: JSON.stringify writes it so, but the check is conservative
      '{"a":1,"a":2}', // a key twice
      '{"a":{"b":1,"c":2},"a":{"b":1}}',
      '{"o":{"x":1,"x":1}}',
      '{"b":1,"1":2}', // an integer-like key (listed first by JavaScript)
      '{"0":1}',
    ];
    for (const text of texts) expect([text, check(text)]).toEqual([text, false]);
  });

  it('never says yes wrongly on mutations of a canonical person', () => {
    const world = createWorld({ persons: 20, companies: 100, seed: 11, asOf: new Date('2026-11-01T00:00:00Z') });
    const edits: ((t: string) => string)[] = [
      (t) => t.replace(':', ': '),
      (t) => t.replace(/"fetched_at":"/, '"fetched_at":"\\u0041'),
      (t) => t.replace(/(\d),/, '$1.0,'),
      (t) => t.replace(/"id":/, '"id":"x","id":'),
      (t) => t.replace(/"username":"[^"]*",/, '$&"username":"dup",'),
      (t) => t.replace(/"full_name":"/, '"full_name":"\\/'),
      (t) => `${t.slice(0, -1)},"7":null}`,
    ];
    for (let i = 0; i < world.persons; i += 1) {
      const text = JSON.stringify(world.person(i));
      for (const edit of edits) {
        const edited = edit(text);
        if (edited !== text) expect(check(edited)).toBe(false);
      }
    }
  });
});

describe('prepareRecord with the line', () => {
  const world = createWorld({ persons: 50, companies: 100, seed: 3, asOf: new Date('2026-11-01T00:00:00Z') });

  it('stores the same text and rows as without it, for canonical and other lines alike', () => {
    for (let i = 0; i < world.persons; i += 1) {
      const person = world.person(i);
      const canonical = JSON.stringify(person);
      // The same record spelled otherwise; and with its positions out of order (the writer sorts them).
      const spaced = JSON.stringify(person, null, 1).replace(/\n/g, '');
      const shuffled = JSON.stringify({ ...person, positions: [...person.positions].reverse() });
      // A backslash in the text (an escaped quote): COPY needs it doubled, so the bytes are not used as they are.
      const escaped = JSON.stringify({ ...person, headline: 'a "quoted" headline' });
      const asString = (v: string | Buffer | undefined) => (typeof v === 'string' || v === undefined ? v : v.toString('utf8'));
      for (const line of [canonical, spaced, shuffled, escaped]) {
        const record = JSON.parse(line);
        const without = prepareRecord('person', record);
        expect(typeof without.text).toBe('string');
        for (const withLine of [prepareRecord('person', record, line), prepareRecord('person', record, line, Buffer.from(line, 'utf8'))]) {
          expect(asString(withLine.text)).toBe(without.text);
          expect({ ...withLine.rows, record: asString(withLine.rows?.record) }).toEqual(without.rows);
        }
      }
      expect(prepareRecord('person', JSON.parse(canonical), canonical).text).toBe(canonical);
      // The bytes as read stand for the text only where they are the COPY field as they are.
      expect(Buffer.isBuffer(prepareRecord('person', JSON.parse(canonical), canonical, Buffer.from(canonical)).text)).toBe(true);
      expect(typeof prepareRecord('person', JSON.parse(escaped), escaped, Buffer.from(escaped)).text).toBe('string');
      expect(typeof prepareRecord('person', JSON.parse(spaced), spaced, Buffer.from(spaced)).text).toBe('string');
    }
  });
});
