/**
 * API keys: `ik_live_` + 30 random base62 characters (about 178 bits) + a 6-character base62
 * checksum (CRC32 of everything before it), as GitHub's tokens carry one. The checksum lets the
 * server refuse a mistyped or made-up key without asking the database, and lets secret scanners
 * tell a real key from random text. Keys issued before the checksum (`ik_live_` + 32 random
 * characters, "legacy") keep working; they are told apart by length.
 *
 * Only a SHA-256 of the key is stored: with that much entropy a slow password hash buys nothing,
 * and a fast one keeps verification cheap.
 */
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'ik_live_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^ik_live_[A-Za-z0-9]{36}$/;
const LEGACY_KEY_PATTERN = /^ik_live_[A-Za-z0-9]{32}$/;
/** ik_live_ + 6 characters: enough to tell keys apart in a list, useless to an attacker. */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 6;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

/** CRC32 in base62, fixed width (62^6 > 2^32). */
function checksum(text: string): string {
  let n = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(48)) {
      // Rejection sampling: 248 = 4 * 62, so bytes below it map uniformly onto the alphabet.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): GeneratedKey {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  const key = body + checksum(body);
  return { key, prefix: displayPrefix(key), hash: hashApiKey(key) };
}

/**
 * `checksummed`: the current format with a valid checksum; `legacy`: the format before checksums
 * (can only be checked against the database); `invalid`: neither (refused without a lookup).
 */
export type KeyFormat = 'checksummed' | 'legacy' | 'invalid';

export function keyFormat(token: string): KeyFormat {
  if (KEY_PATTERN.test(token)) {
    const body = token.slice(0, -CHECKSUM_LENGTH);
    return checksum(body) === token.slice(-CHECKSUM_LENGTH) ? 'checksummed' : 'invalid';
  }
  return LEGACY_KEY_PATTERN.test(token) ? 'legacy' : 'invalid';
}

/** A key of either format, checksum verified; says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  return keyFormat(key) !== 'invalid';
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/**
 * The key's SHA-256 in base64, as the authenticator's cache is keyed: the same digest as
 * hashApiKey, computed in one call (no Hash object, no Buffer), since it runs on every request.
 */
export function apiKeyCacheKey(key: string): string {
  return hash('sha256', key, 'base64');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function hashesEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
