/**
 * A candidate is parsed and compared field by field only when its name can agree (person.ts
 * nameMayAgree), decided on the names read from the start of its record text (candidates.ts Found).
 * That holds while the name comparisons read nothing but those names: here they get a candidate
 * that throws on any other field, so a comparison that starts reading one fails this file.
 */
import { asCandidate, foundPerson, type NameFields } from '../../../src/domain/match/candidates';
import { compareEmailLocal, compareName } from '../../../src/domain/match/compare';
import { parseEmail, parseName } from '../../../src/domain/match/normalize';

const ALLOWED = new Set(['id', 'full_name', 'first_name', 'last_name']);
const guarded = (n: NameFields) =>
  asCandidate(new Proxy(n, {
    get(target, prop) {
      if (typeof prop === 'string' && !ALLOWED.has(prop)) throw new Error(`a name comparison read ${prop}`);
      return target[prop as keyof NameFields];
    },
  }));

const records: NameFields[] = [
  { id: '1', full_name: 'Robert Smith', first_name: 'Robert', last_name: 'Smith' },
  { id: '2', full_name: 'Dr. Jane Q. Doe-Ray', first_name: null, last_name: null },
  { id: '3', full_name: 'Ana María García López', first_name: 'Ana María', last_name: 'García López' },
  { id: '4', full_name: 'Smith', first_name: null, last_name: 'Smith' },
];
const names = ['Bob Smith', 'Jane Doe', 'Smith Robert', 'Ana Garcia', 'Jon Smtih', 'J. Doe'];
const emails = ['bob.smith@acme.com', 'jdoe@acme.com', 'ana@acme.com', 'smithr@acme.com'];

describe('the name comparisons read only the names', () => {
  it.each(records)('record %#', (r) => {
    for (const n of names) expect(() => compareName(parseName(n), guarded(r))).not.toThrow();
    for (const e of emails) expect(() => compareEmailLocal(parseEmail(e)!, guarded(r))).not.toThrow();
  });

  it('the guard itself fails on another field (the check can fail)', () => {
    expect(() => (guarded(records[0]!) as unknown as { current_company: unknown }).current_company).toThrow(/read current_company/);
  });
});

describe('the names read from the start of a record text', () => {
  const names = (text: string) => ({ ...foundPerson(text).name });
  it('are the parsed record\'s, escapes and all, without parsing the rest', () => {
    const record = { id: 'a1', full_name: 'Zoë "Zed" O\\Neil', first_name: 'Zoë', last_name: null, positions: [{ first_name: 'x' }], current_company: 'Acme' };
    const text = JSON.stringify(record);
    const found = foundPerson(text);
    expect(found.name).toEqual({ id: 'a1', full_name: record.full_name, first_name: 'Zoë', last_name: null });
    expect(found.candidate).toEqual(record);
    // The rest is not parsed until the candidate is asked for (here it is not JSON at all).
    const lazy = foundPerson('{"id":"d4","full_name":"A B","first_name":"A","last_name":"B", not json');
    expect(lazy.name).toEqual({ id: 'd4', full_name: 'A B', first_name: 'A', last_name: 'B' });
    expect(() => lazy.candidate).toThrow(SyntaxError);
  });

  it('come from the parsed record when the text begins otherwise', () => {
    const record = { full_name: 'Jane Doe', id: 'b2', first_name: 'Jane', last_name: 'Doe' };
    expect(names(JSON.stringify(record))).toEqual(record);
    const spaced = JSON.stringify({ id: 'c3', full_name: 'Al Bo', first_name: 'Al', last_name: 'Bo' }, null, 1);
    expect(names(spaced)).toEqual({ id: 'c3', full_name: 'Al Bo', first_name: 'Al', last_name: 'Bo' });
  });
});
