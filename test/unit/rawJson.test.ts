import fc from 'fast-check';
import { containsRawJson, RawJson, toJsonText } from '../../src/http/rawJson';

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
