/** A served record's id read from the text's start (domain/jobs/work.ts recordIdOf), parsed otherwise. */
import { recordIdOf } from '../../../src/domain/jobs/work';

describe('recordIdOf', () => {
  const id = 'fab308be-f149-4e11-8b70-4905640f3116';
  it('reads the leading id of a stored record without parsing it', () => {
    expect(recordIdOf(`{"id":"${id}","full_name":"Ada","positions":[{"id":"00000000-0000-4000-8000-000000000000"}]}`)).toBe(id);
    expect(recordIdOf(`{"id": "${id}", "full_name": "Ada"}`)).toBe(id);
  });
  it('parses a record whose first key is not id (the top-level id, never a nested one)', () => {
    expect(recordIdOf(`{"full_name":"Ada","positions":[{"id":"00000000-0000-4000-8000-000000000000"}],"id":"${id}"}`)).toBe(id);
    expect(recordIdOf(`{"id":"not-a-uuid-at-all","x":1}`)).toBe('not-a-uuid-at-all');
  });
});
