/** Dashboard sign-in links and sessions. Tokens never reach this module: only their hashes. */
import type { Knex } from 'knex';
import { PRINCIPAL_COLUMNS, type PrincipalRow } from './apiKeys';

export async function insertLink(db: Knex, values: { token_hash: Buffer; account_id: string; expires_at: Date }): Promise<void> {
  await db('dashboard_links').insert(values);
}

/** Marks an unused, unexpired link used and returns its account; undefined when none matches. */
export async function consumeLink(db: Knex, tokenHash: Buffer): Promise<string | undefined> {
  const [row] = await db('dashboard_links')
    .where({ token_hash: tokenHash })
    .whereNull('used_at')
    .andWhere('expires_at', '>', db.fn.now())
    .update({ used_at: db.fn.now() })
    .returning('account_id');
  return row?.account_id;
}

export interface SessionRow {
  id: string;
  method: 'link' | 'api_key';
  created_at: Date;
  last_seen_at: Date;
}

export async function insertSession(
  db: Knex,
  values: { token_hash: Buffer; account_id: string; key_id: string | null; method: 'link' | 'api_key' },
): Promise<SessionRow> {
  const [row] = await db('dashboard_sessions').insert(values).returning(['id', 'method', 'created_at', 'last_seen_at']);
  return row;
}

export type SessionPrincipalRow = Omit<PrincipalRow, 'key_hash' | 'revoked_at' | 'key_expires_at' | 'key_id'> &
  SessionRow & { key_id: string | null; key_revoked_at: Date | null; key_expires_at: Date | null; account_active_keys: number };

/**
 * A live session with everything a request needs about its account: not ended, used within
 * `idleSeconds`, and (signed in with a key) that key neither revoked nor expired; (signed in by
 * link) its account still holding an active key, so revoking a member's keys ends the member's
 * sessions too.
 */
export async function findLiveSession(db: Knex, tokenHash: Buffer, idleSeconds: number): Promise<SessionPrincipalRow | undefined> {
  const row = await db('dashboard_sessions as s')
    .join('accounts as a', 'a.id', 's.account_id')
    .join('workspaces as w', 'w.id', 'a.workspace_id')
    .leftJoin('api_keys as k', 'k.id', 's.key_id')
    .where('s.token_hash', tokenHash)
    .whereNull('s.ended_at')
    .andWhere('s.last_seen_at', '>', db.raw(`now() - make_interval(secs => ?)`, [idleSeconds]))
    .first(
      's.id',
      's.method',
      's.created_at',
      's.last_seen_at',
      's.key_id',
      'k.revoked_at as key_revoked_at',
      'k.expires_at as key_expires_at',
      ...PRINCIPAL_COLUMNS,
      db.raw(
        `(select count(*)::int from api_keys ak where ak.account_id = a.id and ak.revoked_at is null
           and (ak.expires_at is null or ak.expires_at > now())) as account_active_keys`,
      ),
    );
  return row as SessionPrincipalRow | undefined;
}

/** Sliding idle expiry, written at most once per `minSeconds` per session (not on every request). */
export async function touchSession(db: Knex, id: string, minSeconds: number): Promise<void> {
  await db('dashboard_sessions')
    .where({ id })
    .andWhere('last_seen_at', '<', db.raw(`now() - make_interval(secs => ?)`, [minSeconds]))
    .update({ last_seen_at: db.fn.now() });
}

export async function endSession(db: Knex, id: string): Promise<void> {
  await db('dashboard_sessions').where({ id }).whereNull('ended_at').update({ ended_at: db.fn.now() });
}
