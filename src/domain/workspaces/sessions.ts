/**
 * Dashboard sign-in: single-use links (`enrich dashboard link`) and server-side sessions. Both are
 * random tokens of 32 bytes of which only the SHA-256 is stored, so a copy of the database signs
 * nobody in. A session lasts while it is used (12 h idle), and ends on sign-out, when the key it
 * signed in with is revoked or expires, or (signed in by link) when its account has no active key
 * left: revoking a member's keys (`enrich key revoke ACCOUNT_ID`) ends the member's sessions too.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { toPrincipal } from '../auth/authenticator';
import { findAccountByName, findOwner } from '../../db/repositories/accounts';
import { findPrincipalByKeyHash } from '../../db/repositories/apiKeys';
import * as repo from '../../db/repositories/dashboard';
import { findWorkspaceById } from '../../db/repositories/workspaces';
import { bearerToken, hashApiKey, hashesEqual, isWellFormedApiKey } from '../auth/apiKey';
import type { Principal } from '../auth/principal';
import { apiKeyInvalid, notFound } from '../errors';

export const LINK_TTL_MS = 15 * 60 * 1000;
export const SESSION_IDLE_SECONDS = 12 * 3600;
/** last_seen_at is written at most this often per session, not on every request. */
const TOUCH_EVERY_SECONDS = 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const newToken = () => randomBytes(32).toString('base64url');
const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest();

export interface SignInLink {
  token: string;
  expires_at: string;
  account: { id: string; name: string; role: 'owner' | 'member' };
}

/** A link for the workspace owner, or for the named member (who must exist). */
export async function createSignInLink(db: Knex, input: { workspaceId: string; member?: string; now?: Date }): Promise<SignInLink> {
  const workspace = UUID.test(input.workspaceId) ? await findWorkspaceById(db, input.workspaceId) : undefined;
  if (!workspace) throw notFound(`no workspace with id "${input.workspaceId}"`);
  const account = input.member ? await findAccountByName(db, workspace.id, input.member.trim().normalize('NFC')) : await findOwner(db, workspace.id);
  if (!account) throw notFound(input.member ? `no member "${input.member}" in workspace ${workspace.id} (enrich key create --member creates one)` : 'the workspace has no owner');
  const token = newToken();
  const expiresAt = new Date((input.now ?? new Date()).getTime() + LINK_TTL_MS);
  await repo.insertLink(db, { token_hash: hashToken(token), account_id: account.id, expires_at: expiresAt });
  return { token, expires_at: expiresAt.toISOString(), account: { id: account.id, name: account.name, role: account.role } };
}

export interface DashboardSession {
  id: string;
  method: 'link' | 'api_key';
  createdAt: Date;
  lastSeenAt: Date;
}

export interface SessionContext {
  principal: Principal;
  session: DashboardSession;
}

/** Signs in with a link token or an API key; returns the new session's token (for the cookie). */
export async function signIn(db: Knex, input: { token?: string; api_key?: string }): Promise<{ token: string; context: SessionContext }> {
  let accountId: string | undefined;
  let keyId: string | null = null;
  if (input.token !== undefined) {
    accountId = await repo.consumeLink(db, hashToken(input.token));
  } else if (input.api_key !== undefined) {
    const key = bearerToken(`Bearer ${input.api_key}`);
    if (key && isWellFormedApiKey(key)) {
      const hash = hashApiKey(key);
      const row = await findPrincipalByKeyHash(db, hash);
      const usable = row && hashesEqual(row.key_hash, hash) && !row.revoked_at && (!row.key_expires_at || row.key_expires_at > new Date());
      if (usable) {
        accountId = row.account_id;
        keyId = row.key_id;
      }
    }
  }
  if (!accountId) throw apiKeyInvalid();
  const token = newToken();
  await repo.insertSession(db, { token_hash: hashToken(token), account_id: accountId, key_id: keyId, method: keyId ? 'api_key' : 'link' });
  const context = await resolveSession(db, token);
  if (!context) throw apiKeyInvalid(); // the account lost its last key in between
  return { token, context };
}

/** The live session of a cookie token, or undefined (unknown, ended, idle too long, revoked). */
export async function resolveSession(db: Knex, token: string, idleSeconds = SESSION_IDLE_SECONDS): Promise<SessionContext | undefined> {
  if (!token || token.length > 100) return undefined;
  const row = await repo.findLiveSession(db, hashToken(token), idleSeconds);
  if (!row) return undefined;
  const now = new Date();
  if (row.key_id) {
    if (row.key_revoked_at || (row.key_expires_at && row.key_expires_at <= now)) return undefined;
  } else if (row.account_active_keys === 0) {
    return undefined;
  }
  await repo.touchSession(db, row.id, TOUCH_EVERY_SECONDS);
  return {
    session: { id: row.id, method: row.method, createdAt: row.created_at, lastSeenAt: now },
    // A link session has no key of its own; '' is never a key id (the usage counter skips it).
    principal: toPrincipal({ ...row, key_id: row.key_id ?? '' }),
  };
}

export async function signOut(db: Knex, sessionId: string): Promise<void> {
  await repo.endSession(db, sessionId);
}

/** The contract's Session object. */
export function sessionView(ctx: SessionContext, idleSeconds = SESSION_IDLE_SECONDS) {
  const p = ctx.principal;
  return {
    account: { id: p.accountId, name: p.accountName, role: p.role },
    workspace: { id: p.workspaceId, name: p.workspaceName },
    method: ctx.session.method,
    created_at: ctx.session.createdAt.toISOString(),
    idle_expires_at: new Date(ctx.session.lastSeenAt.getTime() + idleSeconds * 1000).toISOString(),
  };
}

/**
 * The address a sign-in link is opened at (`enrich dashboard link`, and the demo's line at start).
 * The token goes in the fragment: browsers never send it to the server, so no access log holds it.
 */
export const signInUrl = (base: string, token: string) => `${base.replace(/\/+$/, '')}/dashboard/#token=${token}`;
