/** The nickname table ships as generated code: it must be exactly the dataset's CSV. */
import { readFileSync } from 'node:fs';
import { CSV_PATH, GENERATED_PATH, nicknameModule } from '../../../scripts/build-nicknames';

it('nicknameData.ts is generated from data/nicknames.csv (run `tsx scripts/build-nicknames.ts`)', () => {
  expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(nicknameModule(readFileSync(CSV_PATH, 'utf8')));
});

it('keeps the dataset\'s licence beside it', () => {
  expect(readFileSync(CSV_PATH.replace('nicknames.csv', 'nicknames.LICENSE.txt'), 'utf8')).toContain('Apache License');
});
