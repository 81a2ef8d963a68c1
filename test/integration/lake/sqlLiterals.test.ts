/**
 * db/literals.ts: values written into SQL text for the one-round-trip simple queries (the lake
 * writer's "lock, then read"). Any string must come back from the server exactly as it went in,
 * through knex (which reads `?` as a parameter marker), whatever quotes, backslashes, markers or
 * characters it holds; nothing of it may reach the SQL text but hex digits or plain characters.
 */
import { randomBytes } from 'node:crypto';
import { arrayLiteral, integerLiteral, literal } from '../../../src/db/literals';
import { useHarness } from '../../helpers/harness';

const h = useHarness();

const awkward = [
  'a?b', 'c??d', "e'f", 'g\\h', 'g\\?h', 'x\\\\?y', "'); drop table persons; --", '$1', ':name', '', 'plain-user_1',
  'ünïcødé', 'bidi\u202eoverride', 'emoji 🧪', 'tab\there', 'new\nline', '"double"', '??', '\\',
];

async function roundTrip(values: string[]): Promise<string[]> {
  const results = await h.knex.raw(`select 1;\nselect v from unnest(${arrayLiteral(values, 'text')}) with ordinality as t(v, n) order by n`);
  return (results as unknown as { rows: { v: string }[] }[])[1]!.rows.map((r) => r.v);
}

describe('SQL literals', () => {
  it('bring any string back unchanged through knex and the simple protocol', async () => {
    expect(await roundTrip(awkward)).toEqual(awkward);
    // Any code point PostgreSQL text can hold (all but NUL and lone surrogates).
    const random = Array.from({ length: 200 }, () =>
      String.fromCodePoint(...Array.from(randomBytes(24)).map((b, i, all) => (i % 2 ? 1 + ((b << 8) | all[i - 1]!) % 0xd7ff : 0x20 + (b % 0x5f)))),
    );
    expect(await roundTrip(random)).toEqual(random);
  });

  it('put nothing of a value in the SQL text but plain characters or hex', () => {
    for (const value of awkward) expect(literal(value)).toMatch(/^'[A-Za-z0-9_.@:/+=-]*'$|^convert_from\(decode\('[0-9a-f]*', 'hex'\), 'UTF8'\)$/);
    expect(literal('4e0b5d4e-8a0a-4f7e-9b0e-0c1d2e3f4a5b')).toBe("'4e0b5d4e-8a0a-4f7e-9b0e-0c1d2e3f4a5b'");
    expect(arrayLiteral([], 'uuid')).toBe("'{}'::uuid[]");
  });

  it('take only whole numbers as integers', () => {
    expect(integerLiteral('-9223372036854775808')).toBe('-9223372036854775808');
    expect(() => integerLiteral('1; select 1')).toThrow(/not an integer/);
    expect(() => integerLiteral(1.5)).toThrow(/not an integer/);
  });
});
