/**
 * The numeric-id rule (1 to 19 ASCII digits) is written once in TypeScript (src/model/identifiers.ts
 * isNumericId, used by the diff and the identifier parsing) and copied once into SQL
 * (COMPANY_ID_SQL_PATTERN, used by the list hits of db/repositories/personHits.ts). This ties the
 * copy to the rule: PostgreSQL and the function agree on every value that tells them apart.
 */
import { useHarness } from '../../helpers/harness';
import { companyIdOrNull } from '../../../src/db/repositories/personHits';
import { isNumericId } from '../../../src/model/identifiers';

const h = useHarness();

const values = [
  '0',
  '7',
  '0042',
  '1234567890123456789', // 19 digits
  '9999999999999999999', // 19 digits, beyond bigint: still the rule's (storedCompanyId says no company has it)
  '12345678901234567890', // 20 digits
  '',
  ' 12',
  '12 ',
  '12\n',
  '\n12',
  '+12',
  '-12',
  '1.5',
  '1e3',
  '12a',
  'abc',
  '١٢', // Arabic-Indic digits are not [0-9]
  '１２', // nor are full-width ones
];

describe('the numeric company-id rule: SQL copy and TypeScript agree', () => {
  it.each(values.map((v) => [JSON.stringify(v), v]))('%s', async (_label, value) => {
    const { rows } = await h.knex.raw<{ rows: { kept: unknown }[] }>(
      `select ${companyIdOrNull('p')} as kept from (select ?::jsonb as p) t`,
      [JSON.stringify({ companyId: value })],
    );
    expect(rows[0].kept !== null).toBe(isNumericId(value));
  });

  it('a value the rule accepts is kept as it is written', async () => {
    const { rows } = await h.knex.raw<{ rows: { kept: unknown }[] }>(`select ${companyIdOrNull('p')} as kept from (select ?::jsonb as p) t`, [
      JSON.stringify({ companyId: '0042' }),
    ]);
    expect(rows[0].kept).toBe('0042');
  });
});
