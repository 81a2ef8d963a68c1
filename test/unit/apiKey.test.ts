import { bearerToken, displayPrefix, generateApiKey, hashApiKey, hashesEqual, isWellFormedApiKey } from '../../src/domain/auth/apiKey';

describe('API keys', () => {
  it('start with ik_live_ and carry 32 base62 characters', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^ik_live_[A-Za-z0-9]{32}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(prefix).toBe(key.slice(0, 14));
    expect(hash.equals(hashApiKey(key))).toBe(true);
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
