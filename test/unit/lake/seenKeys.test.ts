/**
 * The initial load's filter of the keys it has written (write/seenKeys.ts): never "no" for a key
 * added (a miss would send a stored person to COPY, whose unique violation costs the chunk's
 * fallback); rarely "maybe" for one never added (each costs a lookup).
 */
import { randomUUID } from 'node:crypto';
import { SeenKeys } from '../../../src/domain/lake/write/seenKeys';

describe('SeenKeys', () => {
  it('answers "maybe" for every key added, in any form of text', () => {
    const seen = new SeenKeys(20);
    const keys = [
      ...Array.from({ length: 5_000 }, () => `i:${randomUUID()}`),
      ...Array.from({ length: 5_000 }, (_, i) => `u:person-${i}`),
      'u:', 'u:josé-ñúñez', 'u:名前', 'u:\u{1f600}',
    ];
    for (const k of keys) seen.add(k);
    expect(keys.filter((k) => !seen.mayHave(k))).toEqual([]);
  });

  it('answers "no" for nearly every key never added', () => {
    const seen = new SeenKeys(20); // 2^20 bits
    for (let i = 0; i < 5_000; i += 1) seen.add(`i:${randomUUID()}`);
    const others = Array.from({ length: 5_000 }, () => `i:${randomUUID()}`);
    // 5,000 keys in 2^20 bits with 3 probes: about 3e-6 false positives expected.
    expect(others.filter((k) => seen.mayHave(k)).length).toBeLessThan(10);
    expect(new SeenKeys(20).mayHave('u:anyone')).toBe(false);
  });
});
