/**
 * How a person or a company is named, and the numeric-id rule: the ground floor shared by the
 * domain (src/domain/lake/identifiers.ts reduces a client's input to these keys) and the
 * repositories. Pure: no I/O, no error types.
 */

/**
 * A lookup key: the column and its value, normalized as the stored column is. `legacy`, when
 * present, is the form the same input had under the normalization before migration
 * 20261201000200 (JavaScript toLowerCase only): the tombstones of records withdrawn before that
 * hold digests of that form and cannot be recomputed (they are one-way), so lookups check both.
 */
export type PersonKey = { by: 'username' | 'id' | 'network_id' | 'network_urn'; value: string; legacy?: string };
export type CompanyKey = { by: 'username' | 'company_id' | 'id'; value: string; legacy?: string };

/**
 * THE numeric-id rule: a numeric company ID (and a person's numeric network id) is 1 to 19 ASCII
 * digits, the contract's `pattern: ^[0-9]{1,19}$`. Written once here; its one SQL copy is
 * `COMPANY_ID_SQL_PATTERN` below (used by db/repositories/personHits.ts), and
 * test/integration/lake/companyIdRule.test.ts checks PostgreSQL and this function agree.
 */
export const isNumericId = (value: unknown): value is string => typeof value === 'string' && NUMERIC_ID.test(value);

const NUMERIC_ID = /^[0-9]{1,19}$/;

/**
 * The SQL copy of the rule (a POSIX regular expression for `~`): PostgreSQL cannot call the
 * function above, so the same pattern is stated here, next to it, and tied to it by a test.
 */
export const COMPANY_ID_SQL_PATTERN = '^[0-9]{1,19}$';

/** A numeric company ID as every lookup and tombstone compares it: without leading zeros. */
export const canonicalCompanyId = (digits: string) => digits.replace(/^0+(?=\d)/, '');

const INT8_MAX = 9223372036854775807n;

/**
 * A numeric company ID (the rule above) as stored (bigint, no leading zeros); undefined when it
 * exceeds the stored range, so no company can have it.
 */
export function storedCompanyId(digits: string): string | undefined {
  const canonical = canonicalCompanyId(digits);
  return BigInt(canonical) <= INT8_MAX ? canonical : undefined;
}
