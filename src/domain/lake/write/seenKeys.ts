/**
 * The identity keys (id, username) an initial load has written so far, as a Bloom filter: a record
 * none of whose keys the filter may hold is certainly not stored by this load, so it goes by COPY
 * without asking the database; only the few whose keys it may hold (a person repeated in the file,
 * or a false positive) are looked up (writer.ts loadRecords). It answers "maybe" for every key
 * added and, rarely, for others; never "no" for a key added. Anything written by someone else (or
 * by a load before a crash) is not in it: loadRecords takes a filter only from a load that started
 * on an empty lake in this process, and a COPY that still meets a stored key falls back as before.
 *
 * 2^27 bits (16 MiB, outside the JS heap), three probes: about 0.06 % false positives at a million
 * persons (two keys each), 0.8 % at five million; past that it answers "maybe" more often, which
 * costs a larger lookup, never a wrong result. Pure.
 */
export class SeenKeys {
  private readonly bits: Uint32Array;
  private readonly mask: number;

  constructor(log2Bits = 27) {
    this.bits = new Uint32Array(2 ** (log2Bits - 5));
    this.mask = 2 ** log2Bits - 1;
  }

  add(key: string): void {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i += 1) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 5] |= 1 << (bit & 31);
    }
  }

  /** False: the key was never added. True: it may have been. */
  mayHave(key: string): boolean {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i += 1) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const PROBES = 3;

/** Two independent 32-bit hashes of the key's UTF-16 units (FNV-1a and a multiply-xorshift), mixed at the end. */
function hashes(key: string): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < key.length; i += 1) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 ^= h2 >>> 16;
  h2 = Math.imul(h2, 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  // An odd step, so the three probes never land on one bit.
  return [h1 >>> 0, (h2 | 1) >>> 0];
}
