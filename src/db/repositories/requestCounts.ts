/** The usage timeline's request counts and the keys' last use, written in batches. */
import type { Knex } from 'knex';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type OrderTerm, type Page } from './pages';

export interface CountRow {
  workspace_id: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  status_class: '2xx' | '3xx' | '4xx' | '5xx' | '429';
  count: number;
}

/**
 * One statement for a whole batch: adds to the existing counts. Rows of a workspace deleted since
 * they were counted are skipped (the join), so one of them can never make every later batch fail.
 */
export async function addRequestCounts(db: Knex, rows: CountRow[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `insert into workspace_request_counts (workspace_id, day, status_class, count)
     select u.workspace_id, u.day, u.status_class, u.count
       from unnest(?::uuid[], ?::date[], ?::text[], ?::bigint[]) as u(workspace_id, day, status_class, count)
       join workspaces w on w.id = u.workspace_id
     on conflict (workspace_id, day, status_class) do update set count = workspace_request_counts.count + excluded.count`,
    [rows.map((r) => r.workspace_id), rows.map((r) => r.day), rows.map((r) => r.status_class), rows.map((r) => r.count)],
  );
}

/** One statement for a whole batch of keys; a later time never goes backwards. */
export async function setKeysLastUsed(db: Knex, uses: { key_id: string; at: Date }[]): Promise<void> {
  if (!uses.length) return;
  await db.raw(
    `update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
       from unnest(?::uuid[], ?::timestamptz[]) as u(id, at) where k.id = u.id`,
    [uses.map((u) => u.key_id), uses.map((u) => u.at.toISOString())],
  );
}

export async function requestCountsSince(
  db: Knex,
  workspaceId: string,
  since: string,
): Promise<{ day: string; status_class: CountRow['status_class']; count: number }[]> {
  const rows = await db('workspace_request_counts')
    .where('workspace_id', workspaceId)
    .andWhere('day', '>=', since)
    .select(db.raw(`to_char(day, 'YYYY-MM-DD') as day`), 'status_class', db.raw('count::bigint as count'));
  return rows.map((r: { day: string; status_class: CountRow['status_class']; count: string }) => ({ ...r, count: Number(r.count) }));
}

/** Realtime calls and cost per UTC day, from the exact usage ledger. */
export async function realtimeByDay(
  db: Knex,
  workspaceId: string,
  since: Date,
): Promise<{ day: string; calls: number; cost_micro_usd: number }[]> {
  const rows = await db('realtime_usage')
    .where('workspace_id', workspaceId)
    .andWhere('created_at', '>=', since)
    .groupByRaw(`1`)
    .select(
      db.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day`),
      db.raw('count(*)::int as calls'),
      db.raw('coalesce(sum(cost_usd * 1000000), 0)::bigint as cost_micro_usd'),
    );
  return rows.map((r: { day: string; calls: number; cost_micro_usd: string }) => ({ day: r.day, calls: Number(r.calls), cost_micro_usd: Number(r.cost_micro_usd) }));
}

/** Keys of a workspace (optionally of one account) with their account, newest first, paged. */
export async function pageKeys(
  db: Knex,
  workspaceId: string,
  accountId: string | undefined,
  page: Page,
): Promise<ListResult<KeyPageRow>> {
  const base = () => {
    const qb = db('api_keys as k').join('accounts as a', 'a.id', 'k.account_id').where('a.workspace_id', workspaceId);
    if (accountId) qb.andWhere('a.id', accountId);
    return qb;
  };
  const count = (await boundedCount(db, base().select(db.raw('1')))) as { count: number }[];
  const rows = await pageQuery(db, base(), KEY_ORDER, page)
    .select(
      'k.id',
      'k.prefix',
      'k.created_at',
      'k.last_used_at',
      'k.expires_at',
      'k.revoked_at',
      'a.id as account_id',
      'a.name as account_name',
      'a.role',
      'a.rate_limit_allowance',
    );
  const split = splitPage(rows, KEY_ORDER, page);
  return { rows: split.rows as unknown as KeyPageRow[], next: split.next, ...totalOf(count) };
}

/** Newest first, ties broken by id. */
const KEY_ORDER: OrderTerm[] = [term('k.created_at', 'desc', 'timestamptz'), term('k.id', 'asc', 'uuid')];
/** The owner first, then by name, ties broken by id. */
const MEMBER_ORDER: OrderTerm[] = [term(`(a.role = 'owner')`, 'desc', 'boolean'), term('a.name', 'asc', 'text'), term('a.id', 'asc', 'uuid')];

export interface KeyPageRow {
  id: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  account_id: string;
  account_name: string;
  role: 'owner' | 'member';
  rate_limit_allowance: number | null;
}

export interface MemberPageRow {
  id: string;
  name: string;
  role: 'owner' | 'member';
  rate_limit_allowance: number | null;
  active_keys: number;
  created_at: Date;
}

export async function pageMembers(
  db: Knex,
  workspaceId: string,
  accountId: string | undefined,
  page: Page,
): Promise<ListResult<MemberPageRow>> {
  const base = () => {
    const qb = db('accounts as a').where('a.workspace_id', workspaceId);
    if (accountId) qb.andWhere('a.id', accountId);
    return qb;
  };
  const count = (await boundedCount(db, base().select(db.raw('1')))) as { count: number }[];
  const rows = await pageQuery(db, base(), MEMBER_ORDER, page)
    .select(
      'a.id',
      'a.name',
      'a.role',
      'a.rate_limit_allowance',
      'a.created_at',
      db.raw(
        `(select count(*)::int from api_keys k where k.account_id = a.id and k.revoked_at is null
           and (k.expires_at is null or k.expires_at > now())) as active_keys`,
      ),
    );
  const split = splitPage(rows, MEMBER_ORDER, page);
  return { rows: split.rows as unknown as MemberPageRow[], next: split.next, ...totalOf(count) };
}

export async function findAccountInWorkspace(
  db: Knex,
  workspaceId: string,
  accountId: string,
): Promise<{ id: string; name: string; role: 'owner' | 'member' } | undefined> {
  return db('accounts').where({ id: accountId, workspace_id: workspaceId }).first('id', 'name', 'role');
}

export async function findKeyInWorkspace(
  db: Knex,
  workspaceId: string,
  keyId: string,
): Promise<{ id: string; account_id: string; key_hash: Buffer; revoked_at: Date | null } | undefined> {
  return db('api_keys as k')
    .join('accounts as a', 'a.id', 'k.account_id')
    .where({ 'k.id': keyId, 'a.workspace_id': workspaceId })
    .first('k.id', 'k.account_id', 'k.key_hash', 'k.revoked_at');
}
