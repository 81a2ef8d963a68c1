/**
 * Operator actions behind the `enrich` CLI: workspaces, member accounts, keys and licenses.
 * Each action runs in one transaction and then tells running servers which cached keys to drop.
 */
import type { Knex } from 'knex';
import { findAccountByName, findOwner, insertAccount, setAllowance, type AccountRow } from '../../db/repositories/accounts';
import {
  findActiveKeysByPrefix,
  findActiveKeysOfAccount,
  findKeyByHash,
  findKeyById,
  insertApiKey,
  listKeysOfWorkspace,
  revokeKey as revokeKeyRow,
  type ApiKeyRow,
  type KeyListing,
} from '../../db/repositories/apiKeys';
import { findWorkspaceById, insertWorkspace, updateWorkspace, type WorkspaceRow } from '../../db/repositories/workspaces';
import { KEY_PREFIX, displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey, type GeneratedKey } from '../auth/apiKey';
import { notifyAuthChanged } from '../auth/authenticator';
import { AppError, notFound, validationError } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreatedWorkspace {
  workspace_id: string;
  account_id: string;
  api_key: string;
}

export async function createWorkspace(
  db: Knex,
  input: { name: string; rateLimit: number; active: boolean },
): Promise<CreatedWorkspace> {
  if (!input.name.trim()) throw validationError('workspace name must not be empty');
  assertPositive('rate limit', input.rateLimit);
  const result = await db.transaction(async (trx) => {
    const workspace = await insertWorkspace(trx, {
      name: input.name.trim(),
      rate_limit_per_minute: input.rateLimit,
      license_status: input.active ? 'active' : 'inactive',
    });
    const owner = await insertAccount(trx, {
      workspace_id: workspace.id,
      name: 'owner',
      role: 'owner',
      rate_limit_allowance: null,
    });
    const key = await issueKey(trx, owner);
    return { workspace_id: workspace.id, account_id: owner.id, key };
  });
  // A server may have cached this key as unknown (someone tried it before it existed).
  await notifyAuthChanged(db, { keyHash: result.key.hash });
  return { workspace_id: result.workspace_id, account_id: result.account_id, api_key: result.key.key };
}

export interface CreatedKey {
  account_id: string;
  api_key: string;
}

/** A key for the owner, or for the named member (created on first use) with an optional allowance. */
export async function createKey(
  db: Knex,
  input: { workspaceId: string; member?: string; allowance?: number },
): Promise<CreatedKey> {
  if (input.allowance !== undefined) assertPositive('allowance', input.allowance);
  const result = await db.transaction(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspaceId);
    if (input.allowance !== undefined && input.allowance > workspace.rate_limit_per_minute) {
      throw validationError(
        `allowance ${input.allowance} exceeds the workspace limit of ${workspace.rate_limit_per_minute} requests/minute it is carved from`,
      );
    }
    let account: AccountRow | undefined;
    if (input.member) {
      account = await findAccountByName(trx, workspace.id, input.member);
      account ??= await insertAccount(trx, {
        workspace_id: workspace.id,
        name: input.member,
        role: 'member',
        rate_limit_allowance: input.allowance ?? null,
      });
    } else {
      account = await findOwner(trx, workspace.id);
      if (!account) throw notFound(`workspace ${workspace.id} has no owner account`);
    }
    const allowanceChanged = input.allowance !== undefined && account.rate_limit_allowance !== input.allowance;
    if (allowanceChanged) await setAllowance(trx, account.id, input.allowance!);
    return { account_id: account.id, key: await issueKey(trx, account), allowanceChanged };
  });
  await notifyAuthChanged(db, { keyHash: result.key.hash });
  if (result.allowanceChanged) await notifyAuthChanged(db, { accountId: result.account_id });
  return { account_id: result.account_id, api_key: result.key.key };
}

export interface RevokedKeys {
  revoked: number;
  keys: { key_id: string; prefix: string }[];
}

/**
 * Revokes what the operator points at, whichever handle they have: the full key, a prefix of it
 * (the display prefix ik_live_XXXXXX or any longer or shorter start of the key, at least
 * ik_live_ + 2 characters), a key id, or an account id (all of that account's active keys).
 * A prefix matching several keys is refused rather than guessed.
 */
export async function revokeKey(db: Knex, reference: string): Promise<RevokedKeys> {
  const keys = await resolveKeys(db, reference.trim());
  for (const key of keys) {
    await revokeKeyRow(db, key.id);
    await notifyAuthChanged(db, { keyHash: key.key_hash });
  }
  return { revoked: keys.length, keys: keys.map((k) => ({ key_id: k.id, prefix: k.prefix })) };
}

async function resolveKeys(db: Knex, ref: string): Promise<ApiKeyRow[]> {
  if (isWellFormedApiKey(ref)) {
    const key = await findKeyByHash(db, hashApiKey(ref));
    if (key) return [key];
  } else if (UUID.test(ref)) {
    const key = await findKeyById(db, ref);
    if (key) return [key];
    const ofAccount = await findActiveKeysOfAccount(db, ref);
    if (ofAccount.length) return ofAccount;
  } else if (ref.startsWith(KEY_PREFIX) && ref.length >= KEY_PREFIX.length + 2) {
    // Only the display prefix is stored, so a longer start of a key is matched on that part.
    const matches = await findActiveKeysByPrefix(db, displayPrefix(ref));
    if (matches.length > 1) {
      throw validationError(`"${ref}" matches ${matches.length} active keys; use more characters, the full key or the key id`);
    }
    if (matches.length === 1) return matches;
  }
  throw notFound(`no active API key matches "${ref}"`);
}

export async function listKeys(db: Knex, workspaceId: string): Promise<KeyListing[]> {
  await requireWorkspace(db, workspaceId);
  return listKeysOfWorkspace(db, workspaceId);
}

export async function setLicense(
  db: Knex,
  input: { workspaceId: string; status: 'active' | 'inactive'; expiresAt?: Date | null },
): Promise<WorkspaceRow> {
  await requireWorkspace(db, input.workspaceId);
  const values: Parameters<typeof updateWorkspace>[2] = { license_status: input.status };
  if (input.expiresAt !== undefined) values.license_expires_at = input.expiresAt;
  const row = await updateWorkspace(db, input.workspaceId, values);
  await notifyAuthChanged(db, { workspaceId: input.workspaceId });
  return row!;
}

export async function setRateLimit(db: Knex, workspaceId: string, rateLimit: number): Promise<WorkspaceRow> {
  assertPositive('rate limit', rateLimit);
  await requireWorkspace(db, workspaceId);
  const row = await updateWorkspace(db, workspaceId, { rate_limit_per_minute: rateLimit });
  await notifyAuthChanged(db, { workspaceId });
  return row!;
}

async function requireWorkspace(db: Knex, id: string): Promise<WorkspaceRow> {
  const workspace = UUID.test(id) ? await findWorkspaceById(db, id) : undefined;
  if (!workspace) throw notFound(`no workspace with id "${id}"`);
  return workspace;
}

async function issueKey(db: Knex, account: AccountRow): Promise<GeneratedKey> {
  const generated = generateApiKey();
  await insertApiKey(db, { account_id: account.id, prefix: generated.prefix, key_hash: generated.hash });
  return generated;
}

function assertPositive(what: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new AppError('VALIDATION_ERROR', `${what} must be a positive integer`);
}
