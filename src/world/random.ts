/**
 * Seeded randomness for the synthetic world: a small fast generator (sfc32) that also serves as
 * faker's randomizer, keyed derivation of one independent stream per (seed, kind, index), and
 * keyed bijections used to make identifiers unique by construction.
 *
 * Everything here is integer arithmetic (Math.imul, shifts, xor), so a given key produces the same
 * numbers on every platform.
 */
import type { Randomizer } from '@faker-js/faker';

/** Murmur3's 32-bit finalizer: a bijective avalanche mix of one 32-bit word. */
function mix32(x: number): number {
  x = (x ^ (x >>> 16)) >>> 0;
  x = Math.imul(x, 0x85ebca6b) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

/** A 32-bit key from the world seed (any safe integer) and a purpose tag. */
export function deriveKey(seed: number, purpose: number): number {
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 4294967296) >>> 0;
  return mix32(mix32(lo ^ 0x9e3779b9) ^ mix32((hi + 0x7f4a7c15) >>> 0) ^ Math.imul(purpose + 1, 0x27d4eb2f));
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), 128 bits of state. It implements
 * faker's Randomizer, so a Faker instance built on it draws from the same stream.
 */
export class Rng implements Randomizer {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 1;

  /** Positions the stream at the start of entity `index` of the kind keyed by `key`. */
  reset(key: number, index: number): void {
    const i = index >>> 0;
    const j = Math.floor(index / 4294967296) >>> 0;
    this.a = mix32(key ^ i);
    this.b = mix32((this.a + 0x6a09e667 + j) >>> 0);
    this.c = mix32((this.b ^ 0xbb67ae85) >>> 0);
    this.d = 1;
    for (let k = 0; k < 12; k++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1), 32 bits of precision. */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Randomizer.seed, for faker's own `seed()` calls (the world never makes them). */
  seed(seed: number | number[]): void {
    const words = Array.isArray(seed) ? seed : [seed];
    let key = 0x12345678;
    for (const w of words) key = mix32(key ^ (w >>> 0));
    this.reset(key, 0);
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi], both inclusive. */
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Index drawn with the weights whose running totals are `cumulative` (last entry = total). */
  weighted(cumulative: ArrayLike<number>): number {
    const total = cumulative[cumulative.length - 1] as number;
    return upperBound(cumulative, this.next() * total);
  }

  /** Integer in [lo, hi] with a log-uniform distribution (many small, few large). */
  logInt(lo: number, hi: number): number {
    return Math.min(hi, Math.floor(lo * Math.pow((hi + 1) / lo, this.next())));
  }

  /** `length` characters of `alphabet`. */
  token(alphabet: string, length: number): string {
    let s = '';
    for (let k = 0; k < length; k++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

/** First index i with sorted[i] > value (sorted ascending). */
export function upperBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Running totals of `weights` (the form Rng.weighted takes). */
export function cumulate(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => {
    sum += w;
    out[i] = sum;
  });
  return out;
}

/**
 * A keyed bijection of [0, 2^bits) (bits even, 2..32): a four-round Feistel network. Distinct
 * inputs give distinct outputs, which is how identifiers derived from an index stay unique.
 */
export class Feistel {
  private readonly half: number;
  private readonly mask: number;
  private readonly keys: number[];

  constructor(
    readonly bits: number,
    key: number,
  ) {
    if (bits % 2 !== 0 || bits < 2 || bits > 32) throw new RangeError(`Feistel width must be even, 2..32: ${bits}`);
    this.half = bits / 2;
    this.mask = this.half === 16 ? 0xffff : (1 << this.half) - 1;
    this.keys = [1, 2, 3, 4].map((r) => mix32(key ^ Math.imul(r, 0x9e3779b9)));
  }

  apply(x: number): number {
    let l = Math.floor(x / 2 ** this.half) & this.mask;
    let r = x & this.mask;
    for (const k of this.keys) {
      const f = mix32((r ^ k) >>> 0) & this.mask;
      const nl = r;
      r = (l ^ f) & this.mask;
      l = nl;
    }
    return l * 2 ** this.half + r;
  }

  /** The inverse bijection: invert(apply(x)) === x (the rounds run backwards). */
  invert(y: number): number {
    let l = Math.floor(y / 2 ** this.half) & this.mask;
    let r = y & this.mask;
    for (let k = this.keys.length - 1; k >= 0; k--) {
      const f = mix32((l ^ (this.keys[k] as number)) >>> 0) & this.mask;
      const pr = l;
      l = (r ^ f) & this.mask;
      r = pr;
    }
    return l * 2 ** this.half + r;
  }
}

/** A keyed bijection of [0, n) for any n >= 1: Feistel on the next even power of two, cycle-walking. */
export class IndexPermutation {
  private readonly feistel: Feistel;

  constructor(
    readonly n: number,
    key: number,
  ) {
    let bits = 2;
    while (2 ** bits < n) bits += 2;
    this.feistel = new Feistel(bits, key);
  }

  apply(i: number): number {
    let x = this.feistel.apply(i);
    while (x >= this.n) x = this.feistel.apply(x);
    return x;
  }
}
