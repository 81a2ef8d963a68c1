/** The given-name list ships as generated code: it must be exactly data/given-names.txt, licence beside it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GIVEN_NAMES } from '../../../src/domain/match/givenNameData';
import { isGivenName } from '../../../src/domain/match/normalize';

const DATA = join(__dirname, '..', '..', '..', 'src', 'domain', 'match', 'data');

it('givenNameData.ts is data/given-names.txt', () => {
  expect(GIVEN_NAMES.split(' ')).toEqual(readFileSync(join(DATA, 'given-names.txt'), 'utf8').trim().split('\n'));
});

it('keeps the list\'s licence and source beside it', () => {
  const licence = readFileSync(join(DATA, 'given-names.LICENSE.txt'), 'utf8');
  expect(licence).toContain('CC0 1.0');
  expect(licence).toContain('Moby');
});

it('knows given names (and the nickname table\'s), not other words', () => {
  for (const n of ['gina', 'gino', 'mark', 'mary', 'bob']) expect(isGivenName(n)).toBe(true);
  for (const n of ['gnia', 'mwilsa', 'ncik']) expect(isGivenName(n)).toBe(false);
});
