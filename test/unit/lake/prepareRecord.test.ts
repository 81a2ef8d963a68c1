import { prepareRecord } from '../../../src/domain/lake/write/writer';
import { createWorld } from '../../../src/world';

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
