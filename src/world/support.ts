/**
 * Shared pieces of the world's generators: the per-entity stream (seeded Rng plus Faker instances
 * drawing from it), the context a generator sees, and small formatting helpers.
 */
import { Faker, base, en, type LocaleDefinition } from '@faker-js/faker';

import { Rng } from './random';
import type { City, Country, Industry } from './tables';

/** One seeded stream: an Rng and, per locale, a Faker instance whose randomizer is that Rng. */
export class Stream {
  readonly rng = new Rng();
  private readonly fakers = new Map<LocaleDefinition, Faker>();

  faker(locale: LocaleDefinition = en): Faker {
    let f = this.fakers.get(locale);
    if (f === undefined) {
      f = new Faker({ locale: locale === en ? [en, base] : [locale, en, base], randomizer: this.rng });
      this.fakers.set(locale, f);
    }
    return f;
  }
}

/** What persons need to know about a company; kept in memory for every company generated. */
export interface CompanySummary {
  readonly index: number;
  readonly name: string;
  readonly username: string;
  readonly companyId: string;
  readonly networkUrl: string;
  readonly industry: Industry;
  readonly industryIndex: number;
  readonly industries: readonly Industry[];
  readonly staffCount: number;
  readonly staffRange: string;
  readonly logoUrl: string | null;
  readonly country: Country;
  readonly city: City;
  readonly foundedYear: number | null;
  /** Domain of the website, without scheme ("northwind-analytics.com"). */
  readonly domain: string;
  /** The name before a rename (about 5% of companies were renamed), or null. */
  readonly formerName: string | null;
  /** The month index (year * 12 + month - 1) of the rename, or null. */
  readonly renamedMonth: number | null;
}

export interface School {
  readonly index: number;
  readonly name: string;
  readonly schoolId: string | null;
  readonly url: string | null;
  readonly logo: string | { url: string; width: number; height: number }[] | null;
  readonly country: Country;
}

/** The world as the generators see it. */
export interface WorldContext {
  readonly seed: number;
  readonly persons: number;
  readonly companies: number;
  readonly asOf: Date;
  readonly asOfMs: number;
  readonly asOfYear: number;
  /** asOf as a month index: year * 12 + (month - 1). */
  readonly asOfMonth: number;
  /** Summary of company `index`, generated once and kept. */
  companySummary(index: number): CompanySummary;
  /** Number of world persons whose current employer is company `index` (known before generating them). */
  employeesOf(index: number): number;
  /** Current employer of person `index`, its position among that company's employees, and their number. */
  placement(index: number): { company: number; rank: number; employees: number };
  /** A company drawn with the heavy-tailed company weights (for past employers). */
  randomCompany(rng: Rng): number;
  /**
   * The name two employees of company `index` share (the last two ranks of a company with 12 or
   * more world employees: namesakes at the same employer), drawn from the company's own key.
   */
  namesakeName(index: number): { first: string; last: string };
  /** A school drawn with the Zipf school weights, preferring the given country. */
  randomSchool(rng: Rng, country: Country): School;
}

const HEX = '0123456789abcdef';

export function hex(value: number, digits: number): string {
  let s = '';
  for (let k = digits - 1; k >= 0; k--) s += HEX[Math.floor(value / 16 ** k) % 16];
  return s;
}

/**
 * A UUID v4-shaped identifier whose first 32 bits are `unique32` (a bijection of the entity index,
 * so identifiers never collide) and whose other bits are random. `variant` is the variant nibble
 * (8-b); persons and companies use different ones, so their ids never collide either.
 */
export function uuidFrom(rng: Rng, unique32: number, variant: number): string {
  const a = rng.u32();
  const b = rng.u32();
  const d = rng.u32();
  return (
    hex(unique32, 8) + '-' + hex(a >>> 16, 4) + '-4' + hex(a & 0xfff, 3) + '-' + HEX[variant] + hex(b & 0xfff, 3) + '-' +
    hex(d, 8) + hex(b >>> 16, 4)
  );
}

/** Lower-case ASCII slug: accents stripped, runs of other characters turned into one dash. */
export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const TOKEN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MEDIA = 'https://media.licdn.com/dms/image/v2/';

/** A media URL in the network's CDN shape; `ts` is the upload time in ms. */
export function mediaUrl(rng: Rng, variant: string, ts: number, name = ''): string {
  return `${MEDIA}${rng.pick(['C4E', 'C4D', 'C56', 'D4E', 'D56'])}${rng.token(TOKEN, 12)}/${variant}/0/${ts}${name === '' ? '' : '/' + name}`;
}

export function renditions(rng: Rng, variant: (w: number, h: number) => string, sizes: readonly [number, number][], ts: number): { url: string; width: number; height: number }[] {
  const token = `${rng.pick(['C4E', 'D56'])}${rng.token(TOKEN, 12)}`;
  return sizes.map(([width, height]) => ({ url: `${MEDIA}${token}/${variant(width, height)}/0/${ts}`, width, height }));
}

export const yearOf = (monthIndex: number): number => Math.floor(monthIndex / 12);
export const monthOf = (monthIndex: number): number => (monthIndex % 12) + 1;

/** ISO 8601 date-time without fractional seconds, as the contract's examples write it. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Fills `#` with digits and `?` with upper-case letters. */
export function fillPattern(rng: Rng, pattern: string): string {
  let s = '';
  for (const ch of pattern) {
    if (ch === '#') s += String(rng.int(10));
    else if (ch === '?') s += String.fromCharCode(65 + rng.int(26));
    else s += ch;
  }
  return s;
}

export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
