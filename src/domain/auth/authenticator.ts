/**
 * Turns an Authorization header into a Principal. A verified key is cached in memory for a short
 * while, so a request normally costs no query; operator changes (revoke, license, limits, new keys)
 * announce what changed (db/repositories/authChanges.ts, PostgreSQL NOTIFY), and every instance drops
 * just the affected entries at once, so changes take effect immediately while other keys stay cached.
 */
import { LRUCache } from 'lru-cache';
import type { Knex } from 'knex';
import { findPrincipalByKeyHash, type PrincipalRow } from '../../db/repositories/apiKeys';
import { listenForAuthChanges, notifyAuthChanged as publish, type AuthChangeSubscription } from '../../db/repositories/authChanges';
import { apiKeyInvalid } from '../errors';
import { bearerToken, hashApiKey, hashesEqual, isWellFormedApiKey } from './apiKey';
import type { Principal } from './principal';

/** What an operator change touched: cached entries of that key, account or workspace are dropped. */
export type AuthChange = { keyHash: Buffer } | { accountId: string } | { workspaceId: string };

/** Publish after a change to keys, accounts or workspaces, once it is committed. */
export async function notifyAuthChanged(db: Knex, change: AuthChange): Promise<void> {
  const payload =
    'keyHash' in change ? { key: change.keyHash.toString('base64') } : 'accountId' in change ? { account: change.accountId } : { workspace: change.workspaceId };
  await publish(db, JSON.stringify(payload));
}

interface CacheEntry {
  principal: Principal | null;
}

function parseChange(payload: string | undefined): { key?: string; account?: string; workspace?: string } | undefined {
  try {
    const parsed = JSON.parse(payload ?? '') as Record<string, unknown>;
    return typeof parsed === 'object' && parsed !== null ? (parsed as { key?: string }) : undefined;
  } catch {
    return undefined;
  }
}

export class Authenticator {
  private readonly cache: LRUCache<string, CacheEntry> | undefined;
  private subscription: AuthChangeSubscription | undefined;

  constructor(
    private readonly db: Knex,
    private readonly opts: { ttlMs: number; databaseUrl?: string; onError?: (err: unknown) => void },
  ) {
    this.cache = opts.ttlMs > 0 ? new LRUCache({ max: 50_000, ttl: opts.ttlMs }) : undefined;
  }

  /** Subscribes to invalidations; without it the cache still expires after the TTL. */
  async start(): Promise<void> {
    if (!this.cache || !this.opts.databaseUrl) return;
    this.subscription = await listenForAuthChanges(this.opts.databaseUrl, {
      onMessage: (payload) => this.invalidate(payload),
      onLost: (err) => {
        // A change may have been missed while the subscription was down: forget everything.
        this.cache?.clear();
        this.opts.onError?.(err);
      },
    });
  }

  private invalidate(payload: string | undefined): void {
    const cache = this.cache;
    if (!cache) return;
    const change = parseChange(payload);
    if (!change) return cache.clear(); // unknown message: be safe
    if (change.key) cache.delete(change.key);
    if (change.account || change.workspace) {
      for (const [cacheKey, entry] of cache.entries()) {
        const p = entry.principal;
        if (p && (p.accountId === change.account || p.workspaceId === change.workspace)) cache.delete(cacheKey);
      }
    }
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }

  /** Throws API_KEY_INVALID for a missing, malformed, unknown or revoked key. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    if (!token || !isWellFormedApiKey(token)) throw apiKeyInvalid();
    const hash = hashApiKey(token);
    const cacheKey = hash.toString('base64');
    const cached = this.cache?.get(cacheKey);
    const principal = cached ? cached.principal : await this.lookup(hash);
    if (!cached) this.cache?.set(cacheKey, { principal });
    if (!principal) throw apiKeyInvalid();
    return principal;
  }

  private async lookup(hash: Buffer): Promise<Principal | null> {
    const row = await findPrincipalByKeyHash(this.db, hash);
    // The index already matched on the hash; comparing again in constant time keeps the decision
    // itself free of early exits on attacker-controlled bytes.
    return row && hashesEqual(row.key_hash, hash) && !row.revoked_at ? toPrincipal(row) : null;
  }
}

function toPrincipal(row: PrincipalRow): Principal {
  return {
    keyId: row.key_id,
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
