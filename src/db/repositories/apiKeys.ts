import type { Knex } from 'knex';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  prefix: string;
  key_hash: Buffer;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  checksummed: boolean;
}

/** Everything a request needs to know about its caller, read in one indexed query. */
export interface PrincipalRow {
  key_id: string;
  key_hash: Buffer;
  revoked_at: Date | null;
  key_expires_at: Date | null;
  account_id: string;
  account_name: string;
  role: 'owner' | 'member';
  rate_limit_allowance: number | null;
  workspace_id: string;
  workspace_name: string;
  rate_limit_per_minute: number;
  license_status: 'active' | 'inactive';
  license_expires_at: Date | null;
}

export async function insertApiKey(
  db: Knex,
  values: Pick<ApiKeyRow, 'account_id' | 'prefix' | 'key_hash' | 'expires_at' | 'checksummed'>,
): Promise<ApiKeyRow> {
  const [row] = await db<ApiKeyRow>('api_keys').insert(values).returning('*');
  return row;
}

/**
 * Whether a key of the format before checksums can still authenticate (not revoked, not expired).
 * When none can, a key of that shape is refused without a lookup.
 */
export async function legacyKeysUsable(db: Knex): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { usable: boolean }[] }>(
    `select exists (select 1 from api_keys where not checksummed and revoked_at is null
       and (expires_at is null or expires_at > now())) as usable`,
  );
  return rows[0].usable;
}

/** Sets when a key stops working (null: never). */
export async function setKeyExpiry(db: Knex, id: string, expiresAt: Date | null): Promise<ApiKeyRow | undefined> {
  const [row] = await db<ApiKeyRow>('api_keys').where({ id }).update({ expires_at: expiresAt }).returning('*');
  return row;
}

export async function findPrincipalByKeyHash(db: Knex, keyHash: Buffer): Promise<PrincipalRow | undefined> {
  return db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .join('workspaces as w', 'w.id', 'a.workspace_id')
    .where('k.key_hash', keyHash)
    .first('k.id as key_id', 'k.key_hash', 'k.revoked_at', 'k.expires_at as key_expires_at', ...PRINCIPAL_COLUMNS);
}

/** What a principal is made of, from accounts `a` and workspaces `w` (keys and dashboard sessions alike). */
export const PRINCIPAL_COLUMNS = [
  'a.id as account_id',
  'a.name as account_name',
  'a.role',
  'a.rate_limit_allowance',
  'w.id as workspace_id',
  'w.name as workspace_name',
  'w.rate_limit_per_minute',
  'w.license_status',
  'w.license_expires_at',
] as const;

export async function findKeyById(db: Knex, id: string): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ id }).first();
}

export async function findKeyByHash(db: Knex, hash: Buffer): Promise<ApiKeyRow | undefined> {
  return db<ApiKeyRow>('api_keys').where({ key_hash: hash }).first();
}

/** Active (not revoked) keys with exactly this display prefix, optionally within one workspace. */
export async function findActiveKeysByDisplayPrefix(db: Knex, prefix: string, workspaceId?: string): Promise<ApiKeyRow[]> {
  const query = db<ApiKeyRow>('api_keys as k').whereNull('k.revoked_at').andWhere('k.prefix', prefix).select('k.*');
  if (workspaceId) query.join('accounts as a', 'a.id', 'k.account_id').andWhere('a.workspace_id', workspaceId);
  return query;
}

/** The workspace a key belongs to. */
export async function workspaceOfKey(db: Knex, keyId: string): Promise<string | undefined> {
  const row = await db('api_keys as k').join('accounts as a', 'a.id', 'k.account_id').where('k.id', keyId).first('a.workspace_id');
  return row?.workspace_id;
}

export async function findActiveKeysOfAccount(db: Knex, accountId: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow>('api_keys').where({ account_id: accountId }).whereNull('revoked_at');
}

export interface KeyListing {
  key_id: string;
  account_id: string;
  account_name: string;
  role: string;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
}

export async function listKeysOfWorkspace(db: Knex, workspaceId: string): Promise<KeyListing[]> {
  return db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .where('a.workspace_id', workspaceId)
    .orderBy('k.created_at')
    .select('k.id as key_id', 'a.id as account_id', 'a.name as account_name', 'a.role', 'k.prefix', 'k.created_at', 'k.revoked_at', 'k.expires_at');
}

export async function revokeKey(db: Knex, id: string): Promise<void> {
  await db<ApiKeyRow>('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}
