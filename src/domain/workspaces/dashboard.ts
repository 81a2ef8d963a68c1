/**
 * The Workspace operations (the dashboard's, open to owner keys too): keys, members and their
 * allowances, the usage timeline, a monitor's secret revealed once or rotated. Key creation and
 * revocation go through the operator's own functions (admin.ts), so the API and `enrich key` share
 * one rule and one invalidation path. A member sees only their own account and keys; everything of
 * another workspace is 404.
 */
import type { Knex } from 'knex';
import { setAllowance } from '../../db/repositories/accounts';
import { findWorkspaceById } from '../../db/repositories/workspaces';
import * as counts from '../../db/repositories/requestCounts';
import { getAccount } from '../account/account';
import { notifyAuthChanged } from '../auth/authenticator';
import type { Principal } from '../auth/principal';
import { AppError, notFound, validationError } from '../errors';
import { getMonitor, revealSecret, rotateSecret, ROTATION_OVERLAP_SECONDS, SecretAlreadyRevealed, type MonitorDeps } from '../monitors/monitors';
import { listed, pageOf, type PageRequest } from '../paging';
import { createKey, revokeKey } from './admin';

const ownerRequired = (what: string) => new AppError('OWNER_REQUIRED', `Only the workspace owner may ${what}.`);
/** A member's lists are restricted to their own account. */
const scope = (p: Principal) => (p.role === 'owner' ? undefined : p.accountId);

function keyView(row: counts.KeyPageRow, now = new Date()) {
  const status = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active';
  return {
    id: row.id,
    prefix: row.prefix,
    member: { id: row.account_id, name: row.account_name, role: row.role },
    allowance: row.rate_limit_allowance,
    status: status as 'active' | 'revoked' | 'expired',
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
    expires_at: row.expires_at ? row.expires_at.toISOString() : null,
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

export async function listWorkspaceKeys(db: Knex, p: Principal, req: PageRequest) {
  const paging = pageOf(req, 'listWorkspaceKeys', { workspace: p.workspaceId, account: scope(p) ?? null });
  return listed(paging, async (page) => {
    const result = await counts.pageKeys(db, p.workspaceId, scope(p), page);
    return { ...result, rows: result.rows.map((r) => keyView(r)) };
  });
}

export async function createWorkspaceKey(db: Knex, p: Principal, body: { member?: string; allowance?: number }) {
  if (p.role !== 'owner' && (body.member !== undefined || body.allowance !== undefined)) {
    throw ownerRequired('create keys for other members or set allowances');
  }
  const member = body.member ?? (p.role === 'owner' ? undefined : p.accountName);
  // Without a member the key is the owner's own (createKey refuses an allowance for the owner).
  const created = await createKey(db, { workspaceId: p.workspaceId, member, allowance: body.allowance });
  const { rows } = await counts.pageKeys(db, p.workspaceId, created.account_id, { limit: 1_000_000, offset: 0 });
  const row = rows.find((r) => r.id === created.key_id)!;
  return { key: keyView(row), api_key: created.api_key };
}

/** Revocation exactly as `enrich key revoke` does it (admin.revokeKey), within the caller's scope. */
export async function revokeWorkspaceKey(db: Knex, p: Principal, keyId: string): Promise<void> {
  const key = await counts.findKeyInWorkspace(db, p.workspaceId, keyId.toLowerCase());
  if (!key || (p.role !== 'owner' && key.account_id !== p.accountId)) throw notFound(`no API key with id "${keyId}"`);
  if (key.revoked_at) return;
  await revokeKey(db, key.id, { workspaceId: p.workspaceId });
}

export async function listWorkspaceMembers(db: Knex, p: Principal, req: PageRequest) {
  const paging = pageOf(req, 'listWorkspaceMembers', { workspace: p.workspaceId, account: scope(p) ?? null });
  return listed(paging, async (page) => {
    const result = await counts.pageMembers(db, p.workspaceId, scope(p), page);
    return { ...result, rows: result.rows.map(memberView) };
  });
}

function memberView(r: counts.MemberPageRow) {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    allowance: r.rate_limit_allowance,
    active_keys: Number(r.active_keys),
    created_at: r.created_at.toISOString(),
  };
}

export async function setMemberAllowance(db: Knex, p: Principal, memberId: string, allowance: number | null) {
  const target = await counts.findAccountInWorkspace(db, p.workspaceId, memberId.toLowerCase());
  if (!target || (p.role !== 'owner' && target.id !== p.accountId)) throw notFound(`no member with id "${memberId}"`);
  if (p.role !== 'owner') throw ownerRequired('change allowances');
  if (target.role === 'owner') throw validationError('the owner has the whole workspace window: an allowance is for members');
  const workspace = await findWorkspaceById(db, p.workspaceId);
  if (allowance !== null && workspace && allowance > workspace.rate_limit_per_minute) {
    throw validationError(`allowance ${allowance} exceeds the workspace limit of ${workspace.rate_limit_per_minute} requests/minute it is carved from`);
  }
  await setAllowance(db, target.id, allowance);
  await notifyAuthChanged(db, { accountId: target.id });
  const { rows } = await counts.pageMembers(db, p.workspaceId, target.id, { limit: 1, offset: 0 });
  return memberView(rows[0]);
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export async function getWorkspaceUsage(db: Knex, p: Principal, days: number, windowSeconds: number, now = new Date()) {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const [requestRows, realtimeRows, account] = await Promise.all([
    counts.requestCountsSince(db, p.workspaceId, isoDay(first)),
    counts.realtimeByDay(db, p.workspaceId, first),
    getAccount(db, p, windowSeconds, now),
  ]);
  const byDay = new Map<string, { date: string; status_2xx: number; status_3xx: number; status_4xx: number; status_5xx: number; rate_limited: number; realtime_calls: number; realtime_cost_usd: number }>();
  for (let i = 0; i < days; i++) {
    const date = isoDay(new Date(first.getTime() + i * 86_400_000));
    byDay.set(date, { date, status_2xx: 0, status_3xx: 0, status_4xx: 0, status_5xx: 0, rate_limited: 0, realtime_calls: 0, realtime_cost_usd: 0 });
  }
  for (const r of requestRows) {
    const day = byDay.get(r.day);
    if (!day) continue;
    if (r.status_class === '429') day.rate_limited += r.count;
    else day[`status_${r.status_class}`] += r.count;
  }
  for (const r of realtimeRows) {
    const day = byDay.get(r.day);
    if (!day) continue;
    day.realtime_calls = r.calls;
    day.realtime_cost_usd = r.cost_micro_usd / 1e6;
  }
  return { days: [...byDay.values()], period: account.usage };
}

/** The dashboard's once-only reveal: the same mark as `enrich monitor secret`. */
export async function revealMonitorSecret(deps: Pick<MonitorDeps, 'db' | 'keys'>, p: Principal, monitorId: string) {
  await getMonitor(deps.db, p.workspaceId, monitorId); // 404 across workspaces
  try {
    return { secret: await revealSecret(deps, monitorId), previous_secret_valid_until: null };
  } catch (err) {
    if (err instanceof SecretAlreadyRevealed) {
      throw new AppError('SECRET_ALREADY_REVEALED', 'The secret of this monitor was already revealed; it is never shown twice. Rotate it to get a new one.');
    }
    throw err;
  }
}

export async function rotateMonitorSecret(deps: Pick<MonitorDeps, 'db' | 'keys'>, p: Principal, monitorId: string, now = new Date()) {
  await getMonitor(deps.db, p.workspaceId, monitorId);
  const { secret } = await rotateSecret(deps, monitorId);
  return { secret, previous_secret_valid_until: new Date(now.getTime() + ROTATION_OVERLAP_SECONDS * 1000).toISOString() };
}
