import {
  apiKeyCacheKey,
  bearerToken,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  hashesEqual,
  isWellFormedApiKey,
  keyFormat,
} from '../../src/domain/auth/apiKey';

describe('API keys', () => {
  it('start with ik_live_ and carry 30 random base62 characters and a 6-character checksum', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^ik_live_[A-Za-z0-9]{36}$/);
    expect(keyFormat(key)).toBe('checksummed');
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(prefix).toBe(key.slice(0, 14));
    expect(hash.equals(hashApiKey(key))).toBe(true);
  });

  it('the cache key is the stored hash in base64 (the authenticator\'s cache and its invalidations agree)', () => {
    for (const key of [generateApiKey().key, 'ik_live_' + 'a'.repeat(32), 'x']) {
      expect(apiKeyCacheKey(key)).toBe(hashApiKey(key).toString('base64'));
    }
  });

  it('a mistyped or made-up key fails its checksum (refused without a lookup)', () => {
    const { key } = generateApiKey();
    const last = key[20] === 'a' ? 'b' : 'a';
    const typo = key.slice(0, 20) + last + key.slice(21);
    expect(keyFormat(typo)).toBe('invalid');
    const swapped = key.slice(0, 10) + key[11] + key[10] + key.slice(12);
    if (swapped !== key) expect(keyFormat(swapped)).toBe('invalid');
    // 1,000 random strings of the right shape: a checksum of 32 bits lets about none through.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let passed = 0;
    for (let i = 0; i < 1000; i++) {
      const random = 'ik_live_' + Array.from({ length: 36 }, () => alphabet[Math.floor(Math.random() * 62)]).join('');
      if (keyFormat(random) !== 'invalid') passed++;
    }
    expect(passed).toBe(0);
  });

  it('keys issued before the checksum (ik_live_ + 32 characters) are still well formed', () => {
    expect(keyFormat('ik_live_3kT9qZr4mW8xYb2NcV7pLs0dHf6JgA1e')).toBe('legacy');
    expect(isWellFormedApiKey('ik_live_3kT9qZr4mW8xYb2NcV7pLs0dHf6JgA1e')).toBe(true);
  });

  it('are unique and the stored hash does not contain the key', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
    const { key, hash } = generateApiKey();
    expect(hash.toString('hex')).not.toContain(key.slice(8));
  });

  it('rejects malformed keys before any lookup', () => {
    for (const bad of ['', 'ik_live_', 'ik_test_' + 'a'.repeat(32), 'ik_live_' + 'a'.repeat(31), 'ik_live_' + 'a'.repeat(31) + '!']) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it('reads the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('compares hashes of different lengths without throwing', () => {
    expect(hashesEqual(Buffer.from('ab'), Buffer.from('abc'))).toBe(false);
    expect(displayPrefix('ik_live_ABCDEFGH')).toBe('ik_live_ABCDEF');
  });
});
