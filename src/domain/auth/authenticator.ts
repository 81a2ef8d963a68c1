/**
 * Turns an Authorization header into a Principal. A verified key is cached in memory for a short
 * while, so a request normally costs no query; operator changes (revoke, license, limits, new keys)
 * announce what changed (db/repositories/authChanges.ts, PostgreSQL NOTIFY), and every instance drops
 * just the affected entries at once, so changes take effect immediately while other keys stay cached.
 *
 * Defences against key guessing (the rate of guesses is limited per client address by the
 * authenticate middleware):
 * - a key whose checksum is wrong (apiKey.ts) is refused without any query, and so is a key of the
 *   format before checksums once no such key can still be valid;
 * - unknown keys are remembered in a cache of their own, bounded, so guesses neither repeat
 *   queries nor push valid keys out of the cache of verified ones.
 *
 * While the NOTIFY channel is down a change could be missed, so both caches are emptied and
 * entries live only `degradedTtlMs` until the channel listens again (then they are emptied once
 * more): a revocation never waits out the full TTL.
 */
import { LRUCache } from 'lru-cache';
import type { Knex } from 'knex';
import { findPrincipalByKeyHash, legacyKeysUsable, type PrincipalRow } from '../../db/repositories/apiKeys';
import {
  listenForAuthChanges,
  notifyAuthChanged as publish,
  type AuthChangeSubscription,
  type ChannelTiming,
} from '../../db/repositories/authChanges';
import { apiKeyInvalid } from '../errors';
import { apiKeyCacheKey, bearerToken, hashesEqual, keyFormat } from './apiKey';
import type { Principal } from './principal';

/** A bearer token and its digest (base64 SHA-256, the caches' key), computed once per request. */
export interface PresentedKey {
  token: string;
  cacheKey: string;
}

/** What an operator change touched: cached entries of that key, account or workspace are dropped. */
export type AuthChange = { keyHash: Buffer } | { accountId: string } | { workspaceId: string };

/** Publish after a change to keys, accounts or workspaces, once it is committed. */
export async function notifyAuthChanged(db: Knex, change: AuthChange): Promise<void> {
  const payload =
    'keyHash' in change ? { key: change.keyHash.toString('base64') } : 'accountId' in change ? { account: change.accountId } : { workspace: change.workspaceId };
  await publish(db, JSON.stringify(payload));
}

function parseChange(payload: string | undefined): { key?: string; account?: string; workspace?: string } | undefined {
  try {
    const parsed = JSON.parse(payload ?? '') as Record<string, unknown>;
    return typeof parsed === 'object' && parsed !== null ? (parsed as { key?: string }) : undefined;
  } catch {
    return undefined;
  }
}

/** Verified keys: as many as a large deployment has in use. */
const VERIFIED_MAX = 50_000;
/** Unknown keys: enough to stop repeated guesses, bounded so guessing cannot grow memory. */
const UNKNOWN_MAX = 10_000;

export interface AuthenticatorOptions {
  ttlMs: number;
  /** TTL while the NOTIFY channel is down (default 2 s). */
  degradedTtlMs?: number;
  /** Omitted: no channel, entries expire by TTL only. */
  databaseUrl?: string;
  channelTiming?: Partial<ChannelTiming>;
  onChannelChange?: (state: 'lost' | 'listening', err?: unknown) => void;
  /** Cache sizes (defaults: 50,000 verified keys, 10,000 unknown ones). */
  verifiedMax?: number;
  unknownMax?: number;
}

export class Authenticator {
  private readonly verified: LRUCache<string, Principal> | undefined;
  private readonly unknown: LRUCache<string, true> | undefined;
  /** Per connection, the Authorization header last verified on it (cachedOnConnection). */
  private readonly byConnection = new WeakMap<object, { header: string; cacheKey: string; principal: Principal }>();
  private subscription: AuthChangeSubscription | undefined;
  private degraded = false;
  /** Whether a key of the format before checksums may still be valid (true until known otherwise). */
  private legacyKeys = true;

  constructor(
    private readonly db: Knex,
    private readonly opts: AuthenticatorOptions,
  ) {
    if (opts.ttlMs > 0) {
      this.verified = new LRUCache({ max: opts.verifiedMax ?? VERIFIED_MAX, ttl: opts.ttlMs });
      this.unknown = new LRUCache({ max: opts.unknownMax ?? UNKNOWN_MAX, ttl: opts.ttlMs });
    }
  }

  /** Subscribes to invalidations; without it the cache still expires after the TTL. */
  async start(): Promise<void> {
    await this.refreshLegacyKeys();
    if (!this.verified || !this.opts.databaseUrl) return;
    this.subscription = listenForAuthChanges(
      this.opts.databaseUrl,
      {
        onMessage: (payload) => this.invalidate(payload),
        onLost: (err) => {
          // A change may be missed while the channel is down: forget everything, and keep new
          // entries only briefly until it listens again.
          this.degraded = true;
          this.clear();
          this.opts.onChannelChange?.('lost', err);
        },
        onRestored: () => {
          this.degraded = false;
          this.clear();
          void this.refreshLegacyKeys();
          this.opts.onChannelChange?.('listening');
        },
      },
      this.opts.channelTiming,
    );
    await this.subscription.started;
  }

  /** Whether the NOTIFY channel is down (entries then live degradedTtlMs). */
  get channelDown(): boolean {
    return this.degraded;
  }

  private clear(): void {
    this.verified?.clear();
    this.unknown?.clear();
  }

  private get entryTtl(): number | undefined {
    return this.degraded ? (this.opts.degradedTtlMs ?? 2000) : undefined;
  }

  private async refreshLegacyKeys(): Promise<void> {
    try {
      this.legacyKeys = await legacyKeysUsable(this.db);
    } catch {
      this.legacyKeys = true; // unknown: look such keys up
    }
  }

  private invalidate(payload: string | undefined): void {
    const change = parseChange(payload);
    if (!change) return this.clear(); // unknown message: be safe
    if (change.key) {
      this.verified?.delete(change.key);
      this.unknown?.delete(change.key);
      // A legacy key revoked or expired may have been the last one.
      if (this.legacyKeys) void this.refreshLegacyKeys();
    }
    if ((change.account || change.workspace) && this.verified) {
      for (const [cacheKey, p] of this.verified.entries()) {
        if (p.accountId === change.account || p.workspaceId === change.workspace) this.verified.delete(cacheKey);
      }
    }
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }

  /**
   * The key an Authorization header presents, with its digest computed once: the cache lookup
   * (`cached`) and the verification on a miss (`authenticate`) both use it, so a key is hashed once
   * per request whichever path it takes. Undefined when the header carries no bearer token.
   */
  presented(authorization: string | undefined): PresentedKey | undefined {
    const token = bearerToken(authorization);
    return token ? { token, cacheKey: apiKeyCacheKey(token) } : undefined;
  }

  /** The principal of a key verified recently (no query), if the header (or presented key) carries one. */
  cached(key: string | undefined | PresentedKey): Principal | undefined {
    const presented = typeof key === 'object' ? key : this.presented(key);
    if (!presented || !this.verified) return undefined;
    const principal = this.verified.get(presented.cacheKey);
    return principal && !expired(principal) ? principal : undefined;
  }

  /**
   * The principal of the key a connection's last request was verified with, when this request
   * sends the same Authorization header (a keep-alive client sends one key on every request): no
   * parsing and no digest of the key. The answer is the verified cache's entry, read again under the
   * digest it was stored with: a key revoked, changed, expired or past its TTL there is refused here
   * too, at the same moment (the memo holds no principal of its own). The header text is held only
   * while the connection that sent it is open (a WeakMap on the socket; its own request headers hold
   * the same text), and is compared in constant time for its length: behind a proxy that sends many
   * clients' requests over one connection, the memo only misses.
   */
  cachedOnConnection(connection: object, header: string): Principal | undefined {
    const memo = this.byConnection.get(connection);
    if (memo === undefined || !sameText(memo.header, header)) return undefined;
    const principal = this.verified?.get(memo.cacheKey);
    return principal !== undefined && principal === memo.principal && !expired(principal) ? principal : undefined;
  }

  /** Remembers on the connection the key its request was just verified with (cachedOnConnection). */
  rememberOnConnection(connection: object, header: string, presented: PresentedKey, principal: Principal): void {
    if (this.verified) this.byConnection.set(connection, { header, cacheKey: presented.cacheKey, principal });
  }

  /** Throws API_KEY_INVALID for a missing, malformed, unknown, revoked or expired key. */
  async authenticate(key: string | undefined | PresentedKey): Promise<Principal> {
    const presented = typeof key === 'object' ? key : this.presented(key);
    const format = presented ? keyFormat(presented.token) : 'invalid';
    if (!presented || format === 'invalid' || (format === 'legacy' && !this.legacyKeys)) throw apiKeyInvalid();
    const { cacheKey } = presented;
    const cached = this.verified?.get(cacheKey);
    if (cached) {
      if (expired(cached)) throw apiKeyInvalid();
      return cached;
    }
    if (this.unknown?.get(cacheKey)) throw apiKeyInvalid();
    // The digest the cache key was made of (base64 of the SHA-256): decoded, not computed again.
    const principal = await this.lookup(Buffer.from(cacheKey, 'base64'));
    if (!principal) {
      this.unknown?.set(cacheKey, true, { ttl: this.entryTtl });
      throw apiKeyInvalid();
    }
    this.verified?.set(cacheKey, principal, { ttl: this.entryTtl });
    if (expired(principal)) throw apiKeyInvalid();
    return principal;
  }

  private async lookup(hash: Buffer): Promise<Principal | null> {
    const row = await findPrincipalByKeyHash(this.db, hash);
    // The index already matched on the hash; comparing again in constant time keeps the decision
    // itself free of early exits on attacker-controlled bytes.
    return row && hashesEqual(row.key_hash, hash) && !row.revoked_at ? toPrincipal(row) : null;
  }
}

/** Whether two strings are equal, without an early exit on the first differing character. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function expired(p: Principal, now = Date.now()): boolean {
  return p.keyExpiresAt !== null && p.keyExpiresAt.getTime() <= now;
}

/** The principal of a key's (or a dashboard session's) row: one mapping for both. */
export function toPrincipal(row: Omit<PrincipalRow, 'key_hash' | 'revoked_at'>): Principal {
  return {
    keyId: row.key_id,
    keyExpiresAt: row.key_expires_at,
    accountId: row.account_id,
    accountName: row.account_name,
    role: row.role,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    workspaceLimit: row.rate_limit_per_minute,
    memberAllowance: row.rate_limit_allowance,
    licenseStatus: row.license_status,
    licenseExpiresAt: row.license_expires_at,
  };
}
