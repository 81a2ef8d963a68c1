import type { Knex } from 'knex';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  prefix: string;
  key_hash: Buffer;
  created_at: Date;
  revoked_at: Date | null;
}

/** Everything a request needs to know about its caller, read in one indexed query. */
export interface PrincipalRow {
  key_id: string;
  key_hash: Buffer;
  revoked_at: Date | null;
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
  values: Pick<ApiKeyRow, 'account_id' | 'prefix' | 'key_hash'>,
): Promise<ApiKeyRow> {
  const [row] = await db<ApiKeyRow>('api_keys').insert(values).returning('*');
  return row;
}

export async function findPrincipalByKeyHash(db: Knex, keyHash: Buffer): Promise<PrincipalRow | undefined> {
  return db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .join('workspaces as w', 'w.id', 'a.workspace_id')
    .where('k.key_hash', keyHash)
    .first(
      'k.id as key_id',
      'k.key_hash',
      'k.revoked_at',
      'a.id as account_id',
      'a.name as account_name',
      'a.role',
      'a.rate_limit_allowance',
      'w.id as workspace_id',
      'w.name as workspace_name',
      'w.rate_limit_per_minute',
      'w.license_status',
      'w.license_expires_at',
    );
}

/** Keys matching an id, a display prefix or a full-key hash (the operator may paste any of them). */
export async function findKeysByReference(
  db: Knex,
  ref: { id?: string; prefix?: string; hash?: Buffer },
): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow>('api_keys').where((q) => {
    if (ref.id) q.orWhere('id', ref.id);
    if (ref.prefix) q.orWhere('prefix', ref.prefix);
    if (ref.hash) q.orWhere('key_hash', ref.hash);
  });
}

export async function revokeKey(db: Knex, id: string): Promise<void> {
  await db<ApiKeyRow>('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
}
