import fc from 'fast-check';
import { containsRawJson, RawJson, toJsonBytes, toJsonText } from '../../src/http/rawJson';

describe('toJsonText', () => {
  it('writes what JSON.stringify writes for any value without RawJson', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(toJsonText(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('follows JSON.stringify for undefined members, Dates and toJSON', () => {
    const value = {
      a: undefined,
      b: [undefined, () => 1, 2],
      at: new Date('2026-11-21T10:15:00Z'),
      own: { toJSON: () => 'mine' },
      nested: { c: undefined, d: null },
    };
    expect(toJsonText(value)).toBe(JSON.stringify(value));
  });

  it('splices RawJson text in place, at any depth', () => {
    const record = '{"id": "x",   "n": [1, 2]}';
    const text = toJsonText({ results: [{ input: { id: 'x' }, data: new RawJson(record) }, { data: null }], matched: 1 });
    expect(text).toBe(`{"results":[{"input":{"id":"x"},"data":${record}},{"data":null}],"matched":1}`);
    expect(JSON.parse(text!)).toEqual({ results: [{ input: { id: 'x' }, data: { id: 'x', n: [1, 2] } }, { data: null }], matched: 1 });
  });

  it('escapes caller input that looks like JSON or like stored text: only RawJson values are spliced', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (input, stored) => {
        const storedText = JSON.stringify(stored);
        const body = { input: { username: input, id: storedText }, data: new RawJson(storedText) };
        // Compared with the stored text parsed, not with `stored`: JSON itself does not keep -0.
        expect(JSON.parse(toJsonText(body)!)).toEqual({ input: { username: input, id: storedText }, data: JSON.parse(storedText) });
      }),
    );
  });
});

describe('toJsonBytes', () => {
  /** A JSON value with some of its parts (any depth) replaced by the same value as stored text. */
  const withStoredParts = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 1 }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => new RawJson(JSON.stringify(v))),
      fc.array(tie('value')),
      fc.dictionary(fc.string(), tie('value')),
    ),
  })).value;

  it('is the UTF-8 of toJsonText for any value, with stored text at any depth', () => {
    fc.assert(
      fc.property(withStoredParts, (value) => {
        const bytes = toJsonBytes(value);
        expect(bytes.toString('utf8')).toBe(toJsonText(value));
        expect(bytes.length).toBe(Buffer.byteLength(toJsonText(value)!));
      }),
    );
  });

  it('keeps characters beyond Latin-1 and beyond the BMP, in stored text and around it', () => {
    const record = '{"full_name":"Zoë Łukasiewicz 山田 😀","n":[1, 2]}';
    const body = { results: [{ input: { username: 'łódź-😀' }, data: new RawJson(record) }, { input: { id: 'x' }, data: null }], matched: 1 };
    const bytes = toJsonBytes(body);
    expect(bytes.toString('utf8')).toBe(`{"results":[{"input":{"username":"łódź-😀"},"data":${record}},{"input":{"id":"x"},"data":null}],"matched":1}`);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ ...body, results: [{ ...body.results[0], data: JSON.parse(record) }, body.results[1]] });
  });

  it('leaves out members without JSON text and writes null for them in arrays, as JSON.stringify', () => {
    const value = { a: undefined, b: [undefined, () => 1, new RawJson('{}')], at: new Date('2026-11-21T10:15:00Z'), own: { toJSON: () => 'mine' } };
    expect(toJsonBytes(value).toString('utf8')).toBe('{"b":[null,null,{}],"at":"2026-11-21T10:15:00.000Z","own":"mine"}');
  });
});

describe('containsRawJson', () => {
  it.each([
    [{ data: new RawJson('{}') }, true],
    [{ results: [{ data: null }, { data: new RawJson('{}') }] }, true],
    [{ results: [{ data: null }], text: '{}' }, false],
    [{ error: 'x', code: 'NOT_FOUND' }, false],
    [{ at: new Date() }, false],
  ])('%#', (value, expected) => {
    expect(containsRawJson(value)).toBe(expected);
  });
});
