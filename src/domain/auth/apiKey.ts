/**
 * API keys: `ik_live_` + 32 base62 characters (about 190 bits). Only a SHA-256 of the key is stored:
 * with that much entropy a slow password hash buys nothing, and a fast one keeps verification cheap.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'ik_live_';
const SECRET_LENGTH = 32;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_PATTERN = /^ik_live_[A-Za-z0-9]{32}$/;
/** ik_live_ + 6 characters: enough to tell keys apart in a list, useless to an attacker. */
const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 6;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: Buffer;
}

export function generateApiKey(): GeneratedKey {
  let secret = '';
  while (secret.length < SECRET_LENGTH) {
    for (const byte of randomBytes(48)) {
      // Rejection sampling: 248 = 4 * 62, so bytes below it map uniformly onto the alphabet.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  const key = KEY_PREFIX + secret;
  return { key, prefix: displayPrefix(key), hash: hashApiKey(key) };
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
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
