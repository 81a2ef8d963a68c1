/**
 * Operator actions behind the `enrich` CLI: workspaces, member accounts, keys and licenses.
 * Each action runs in one transaction and then tells running servers which cached keys to drop.
 */
import type { Knex } from 'knex';
import { listWorkspaces as listWorkspaceRows } from '../../db/repositories/workspaces';
import {
  findAccountByName,
  findOwner,
  insertAccount,
  largestAllowance,
  setAllowance,
  type AccountRow,
} from '../../db/repositories/accounts';
import {
  findActiveKeysByDisplayPrefix,
  findActiveKeysOfAccount,
  findKeyByHash,
  findKeyById,
  insertApiKey,
  listKeysOfWorkspace,
  revokeKey as revokeKeyRow,
  setKeyExpiry,
  workspaceOfKey,
  type ApiKeyRow,
  type KeyListing,
} from '../../db/repositories/apiKeys';
import { findWorkspaceById, insertWorkspace, updateWorkspace, type WorkspaceRow } from '../../db/repositories/workspaces';
import { DISPLAY_PREFIX_LENGTH, generateApiKey, hashApiKey, isWellFormedApiKey, type GeneratedKey } from '../auth/apiKey';
import { notifyAuthChanged } from '../auth/authenticator';
import { AppError, notFound, validationError } from '../errors';
import { hasFormattingCharacters } from '../text';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DISPLAY_PREFIX = new RegExp(`^ik_live_[A-Za-z0-9]{${DISPLAY_PREFIX_LENGTH - 'ik_live_'.length}}$`);

/** Names of workspaces and members: shown in `key list` and GET /account. */
export const NAME_MAX_LENGTH = 100;
/** A name as stored: trimmed, NFC, 1-100 characters, no control or bidi formatting characters. */
export function checkName(what: string, raw: string): string {
  const name = raw.trim().normalize('NFC');
  if (!name) throw validationError(`${what} must not be empty`);
  if (hasFormattingCharacters(name)) throw validationError(`${what} must not contain control or bidirectional formatting characters`);
  if ([...name].length > NAME_MAX_LENGTH) throw validationError(`${what} must be at most ${NAME_MAX_LENGTH} characters`);
  return name;
}

export interface CreatedWorkspace {
  workspace_id: string;
  account_id: string;
  api_key: string;
}

export async function createWorkspace(
  db: Knex,
  input: { name: string; rateLimit: number; active: boolean },
): Promise<CreatedWorkspace> {
  const name = checkName('workspace name', input.name);
  assertPositive('rate limit', input.rateLimit);
  const result = await db.transaction(async (trx) => {
    const workspace = await insertWorkspace(trx, {
      name,
      rate_limit_per_minute: input.rateLimit,
      license_status: input.active ? 'active' : 'inactive',
    });
    const owner = await insertAccount(trx, {
      workspace_id: workspace.id,
      name: 'owner',
      role: 'owner',
      rate_limit_allowance: null,
    });
    const key = await issueKey(trx, owner, null);
    return { workspace_id: workspace.id, account_id: owner.id, key };
  });
  // A server may have cached this key as unknown (someone tried it before it existed).
  await notifyAuthChanged(db, { keyHash: result.key.hash });
  return { workspace_id: result.workspace_id, account_id: result.account_id, api_key: result.key.key };
}

export interface CreatedKey {
  account_id: string;
  key_id: string;
  api_key: string;
  expires_at: string | null;
}

/** A key for the owner, or for the named member (created on first use) with an optional allowance. */
export async function createKey(
  db: Knex,
  input: { workspaceId: string; member?: string; allowance?: number; expiresAt?: Date | null; now?: Date },
): Promise<CreatedKey> {
  if (input.allowance !== undefined) assertPositive('allowance', input.allowance);
  const member = input.member === undefined ? undefined : checkName('member name', input.member);
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt && expiresAt.getTime() <= (input.now ?? new Date()).getTime()) {
    throw validationError('--expires-at is in the past: the key would never work');
  }
  const result = await db.transaction(async (trx) => {
    const workspace = await requireWorkspace(trx, input.workspaceId);
    if (input.allowance !== undefined && input.allowance > workspace.rate_limit_per_minute) {
      throw validationError(
        `allowance ${input.allowance} exceeds the workspace limit of ${workspace.rate_limit_per_minute} requests/minute it is carved from`,
      );
    }
    let account: AccountRow | undefined;
    if (member) {
      account = await findAccountByName(trx, workspace.id, member);
      account ??= await insertAccount(trx, {
        workspace_id: workspace.id,
        name: member,
        role: 'member',
        rate_limit_allowance: input.allowance ?? null,
      });
    } else {
      account = await findOwner(trx, workspace.id);
      if (!account) throw notFound(`workspace ${workspace.id} has no owner account`);
    }
    // One rule for the CLI and the Workspace API: the owner has the whole workspace window.
    if (account.role === 'owner' && input.allowance !== undefined) {
      throw validationError('the owner has the whole workspace window: an allowance is for members');
    }
    const allowanceChanged = input.allowance !== undefined && account.rate_limit_allowance !== input.allowance;
    if (allowanceChanged) await setAllowance(trx, account.id, input.allowance!);
    const key = await issueKey(trx, account, expiresAt);
    return { account_id: account.id, key, allowanceChanged };
  });
  await notifyAuthChanged(db, { keyHash: result.key.hash });
  if (result.allowanceChanged) await notifyAuthChanged(db, { accountId: result.account_id });
  return {
    account_id: result.account_id,
    key_id: result.key.id,
    api_key: result.key.key,
    expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
}

export interface RolledKey extends CreatedKey {
  replaced: { key_id: string; prefix: string; expires_at: string };
}

/**
 * Rotation without downtime: a new key for the same account, and the old one set to expire after
 * `overlapMs` (or earlier, if it already expired sooner), so clients can switch within the overlap.
 */
export async function rollKey(
  db: Knex,
  input: { reference: string; overlapMs: number; expiresAt?: Date | null; workspaceId?: string; now?: Date },
): Promise<RolledKey> {
  const now = input.now ?? new Date();
  if (!Number.isInteger(input.overlapMs) || input.overlapMs < 0) throw validationError('overlap must be a non-negative duration');
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime() + input.overlapMs) {
    throw validationError('--expires-at of the new key must be after the overlap ends');
  }
  const keys = await resolveKeys(db, input.reference.trim(), { workspaceId: input.workspaceId, accounts: false });
  const old = keys[0];
  if (old.expires_at && old.expires_at.getTime() <= now.getTime()) throw validationError(`key ${old.prefix}… has already expired`);
  const until = new Date(now.getTime() + input.overlapMs);
  const oldExpiry = old.expires_at && old.expires_at < until ? old.expires_at : until;
  const result = await db.transaction(async (trx) => {
    const account = { id: old.account_id } as AccountRow;
    const key = await issueKey(trx, account, input.expiresAt ?? null);
    await setKeyExpiry(trx, old.id, oldExpiry);
    return key;
  });
  await notifyAuthChanged(db, { keyHash: old.key_hash });
  await notifyAuthChanged(db, { keyHash: result.hash });
  return {
    account_id: old.account_id,
    key_id: result.id,
    api_key: result.key,
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    replaced: { key_id: old.id, prefix: old.prefix, expires_at: oldExpiry.toISOString() },
  };
}

export interface RevokedKeys {
  revoked: number;
  keys: { key_id: string; prefix: string }[];
}

/**
 * Revokes what the operator points at: the full key, its exact display prefix (ik_live_ + 6
 * characters, as `key list` shows it) when exactly one active key has it, a key id, or an account
 * id (all of that account's active keys). Anything shorter, longer or ambiguous is refused: a
 * revocation must never hit a key the operator did not mean. `workspaceId` restricts the match.
 */
export async function revokeKey(db: Knex, reference: string, opts: { workspaceId?: string } = {}): Promise<RevokedKeys> {
  const keys = await resolveKeys(db, reference.trim(), { workspaceId: opts.workspaceId, accounts: true });
  for (const key of keys) {
    await revokeKeyRow(db, key.id);
    await notifyAuthChanged(db, { keyHash: key.key_hash });
  }
  return { revoked: keys.length, keys: keys.map((k) => ({ key_id: k.id, prefix: k.prefix })) };
}

async function resolveKeys(
  db: Knex,
  ref: string,
  opts: { workspaceId?: string; accounts: boolean },
): Promise<ApiKeyRow[]> {
  if (opts.workspaceId) await requireWorkspace(db, opts.workspaceId);
  const inScope = async (keys: ApiKeyRow[]) => {
    if (!opts.workspaceId) return keys;
    const owned: ApiKeyRow[] = [];
    for (const key of keys) if ((await workspaceOfKey(db, key.id)) === opts.workspaceId) owned.push(key);
    return owned;
  };
  let found: ApiKeyRow[] = [];
  if (isWellFormedApiKey(ref)) {
    const key = await findKeyByHash(db, hashApiKey(ref));
    found = key && !key.revoked_at ? [key] : [];
  } else if (UUID.test(ref)) {
    const key = await findKeyById(db, ref);
    if (key) found = key.revoked_at ? [] : [key];
    else if (opts.accounts) found = await findActiveKeysOfAccount(db, ref);
  } else if (DISPLAY_PREFIX.test(ref)) {
    const matches = await findActiveKeysByDisplayPrefix(db, ref, opts.workspaceId);
    if (matches.length > 1) {
      throw validationError(
        `"${ref}" is the display prefix of ${matches.length} active keys; give the full key or the key id (enrich key list --workspace ...)`,
      );
    }
    found = matches;
  } else {
    throw validationError(
      `"${ref}" is neither a full key, a display prefix (ik_live_ + 6 characters, as \`enrich key list\` shows), a key id nor ${opts.accounts ? 'an account id' : 'a key id'}`,
    );
  }
  found = await inScope(found);
  if (!found.length) throw notFound(`no active API key matches "${ref}"${opts.workspaceId ? ` in workspace ${opts.workspaceId}` : ''}`);
  return found;
}

export async function listKeys(db: Knex, workspaceId: string): Promise<KeyListing[]> {
  await requireWorkspace(db, workspaceId);
  return listKeysOfWorkspace(db, workspaceId);
}

/**
 * Sets a workspace's license. `expiresAt`: a date sets the end, null removes it, undefined keeps
 * it, except that activating a license whose end has already passed removes that end (activating
 * it would otherwise leave it expired, still 402).
 */
export async function setLicense(
  db: Knex,
  input: { workspaceId: string; status: 'active' | 'inactive'; expiresAt?: Date | null; now?: Date },
): Promise<WorkspaceRow> {
  const workspace = await requireWorkspace(db, input.workspaceId);
  const now = input.now ?? new Date();
  const values: Parameters<typeof updateWorkspace>[2] = { license_status: input.status };
  if (input.expiresAt !== undefined) values.license_expires_at = input.expiresAt;
  else if (input.status === 'active' && workspace.license_expires_at && workspace.license_expires_at <= now) {
    values.license_expires_at = null;
  }
  const row = await updateWorkspace(db, input.workspaceId, values);
  await notifyAuthChanged(db, { workspaceId: input.workspaceId });
  return row!;
}

export async function setRateLimit(db: Knex, workspaceId: string, rateLimit: number): Promise<WorkspaceRow> {
  assertPositive('rate limit', rateLimit);
  const row = await db.transaction(async (trx) => {
    await requireWorkspace(trx, workspaceId);
    // Allowances are carved out of the workspace total: none may exceed it (key create refuses that too).
    const largest = await largestAllowance(trx, workspaceId);
    if (largest && largest.rate_limit_allowance > rateLimit) {
      throw validationError(
        `member "${largest.name}" has an allowance of ${largest.rate_limit_allowance} requests/minute, above ${rateLimit}; ` +
          'lower that allowance first (enrich key create --member NAME --allowance N)',
      );
    }
    return updateWorkspace(trx, workspaceId, { rate_limit_per_minute: rateLimit });
  });
  await notifyAuthChanged(db, { workspaceId });
  return row!;
}

async function requireWorkspace(db: Knex, id: string): Promise<WorkspaceRow> {
  const workspace = UUID.test(id) ? await findWorkspaceById(db, id) : undefined;
  if (!workspace) throw notFound(`no workspace with id "${id}"`);
  return workspace;
}

async function issueKey(db: Knex, account: Pick<AccountRow, 'id'>, expiresAt: Date | null): Promise<GeneratedKey & { id: string }> {
  const generated = generateApiKey();
  const row = await insertApiKey(db, {
    account_id: account.id,
    prefix: generated.prefix,
    key_hash: generated.hash,
    expires_at: expiresAt,
    checksummed: true,
  });
  return { ...generated, id: row.id };
}

function assertPositive(what: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new AppError('VALIDATION_ERROR', `${what} must be a positive integer`);
}

export interface WorkspaceListing {
  workspace_id: string;
  name: string;
  license: 'active' | 'inactive';
  license_expires_at: string | null;
  rate_limit: number;
  active_keys: number;
  created_at: string;
}

/** `enrich workspace list`: what an operator needs to pick a workspace id. */
export async function listAllWorkspaces(db: Knex): Promise<WorkspaceListing[]> {
  const rows = await listWorkspaceRows(db);
  return rows.map((r) => ({
    workspace_id: r.id,
    name: r.name,
    license: r.license_status,
    license_expires_at: r.license_expires_at ? r.license_expires_at.toISOString() : null,
    rate_limit: r.rate_limit_per_minute,
    active_keys: r.active_keys,
    created_at: r.created_at.toISOString(),
  }));
}

