/**
 * Monitors (migration 20261123000100_monitors). Plain values in, plain rows out. Every read and
 * write of one monitor is scoped by workspace, so another workspace's monitor is simply not found.
 */
import type { Knex } from 'knex';

export interface MonitorRow {
  id: string;
  workspace_id: string;
  type: 'person' | 'company';
  /** Null once the subject was withdrawn (privacy request): see withdrawSubjectMonitors. */
  subject_slug: string | null;
  label: string | null;
  webhook_url: string;
  events: string[];
  active: boolean;
  created_at: Date;
}

const COLUMNS = ['id', 'workspace_id', 'type', 'subject_slug', 'label', 'webhook_url', 'events', 'active', 'created_at'];

export interface NewMonitor {
  workspace_id: string;
  type: 'person' | 'company';
  subject_slug: string;
  label: string | null;
  webhook_url: string;
  events: string[];
  secret_ciphertext: string;
}

/**
 * Locks the workspace row until the transaction ends, so two concurrent creations cannot both see
 * 999 monitors and both insert.
 */
export async function lockWorkspaceMonitors(trx: Knex.Transaction, workspaceId: string): Promise<number> {
  await trx.raw('select id from workspaces where id = ? for update', [workspaceId]);
  const row = await trx('monitors').where('workspace_id', workspaceId).count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

export async function insertMonitor(trx: Knex.Transaction, monitor: NewMonitor): Promise<MonitorRow> {
  const rows = await trx('monitors').insert(monitor).returning(COLUMNS);
  return rows[0] as MonitorRow;
}

export async function listMonitors(db: Knex, workspaceId: string): Promise<MonitorRow[]> {
  return db('monitors').select(COLUMNS).where('workspace_id', workspaceId).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'asc' },
  ]);
}

export async function findMonitor(db: Knex, workspaceId: string, id: string): Promise<MonitorRow | undefined> {
  return db('monitors').select(COLUMNS).where({ workspace_id: workspaceId, id }).first();
}

/** Operators (CLI): a monitor by id, whatever its workspace. */
export async function findMonitorById(db: Knex, id: string): Promise<MonitorRow | undefined> {
  return db('monitors').select(COLUMNS).where({ id }).first();
}

export async function deleteMonitor(trx: Knex.Transaction, workspaceId: string, id: string): Promise<MonitorRow | undefined> {
  const rows = await trx('monitors').where({ workspace_id: workspaceId, id }).delete().returning(COLUMNS);
  return rows[0] as MonitorRow | undefined;
}

/** Number of monitors on a subject (any workspace): the watcher count of the refresh queue. */
export async function countSubjectMonitors(db: Knex, type: 'person' | 'company', slug: string): Promise<number> {
  const row = await db('monitors').where({ type, subject_slug: slug }).count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

/**
 * Reveals the secret once: returns the ciphertext and marks it revealed, in one statement, or
 * undefined when the monitor is unknown or its secret was already revealed.
 */
export async function takeSecretForReveal(db: Knex, id: string): Promise<{ secret_ciphertext: string } | undefined> {
  const rows = await db('monitors')
    .where({ id })
    .whereNull('secret_revealed_at')
    .update({ secret_revealed_at: db.fn.now() })
    .returning(['secret_ciphertext']);
  return rows[0] as { secret_ciphertext: string } | undefined;
}

export async function secretState(db: Knex, id: string): Promise<{ revealed: boolean } | undefined> {
  const row = await db('monitors').select('secret_revealed_at').where({ id }).first();
  return row ? { revealed: row.secret_revealed_at !== null } : undefined;
}

/**
 * Rotation: the current secret becomes the previous one (signing until `previousExpiresInSeconds`
 * from now), `ciphertext` the current one, revealed at once; only when no earlier rotation's
 * previous secret still signs. Concurrent rotations queue on the row's lock and each re-checks
 * that condition on the row the one before it left, so exactly one of them rotates.
 * `in_progress` says until when the replaced secret signs; `not_found`: unknown monitor.
 */
export async function rotateSecret(
  db: Knex,
  id: string,
  ciphertext: string,
  previousExpiresInSeconds: number,
  opts: { force?: boolean } = {},
): Promise<{ outcome: 'rotated'; droppedUntil: Date | null } | { outcome: 'in_progress'; until: Date } | { outcome: 'not_found' }> {
  // The row's values before the update (a FROM row locked first): a forced rotation reports the
  // secret it stopped before its time.
  const { rows } = await db.raw<{ rows: { dropped_until: Date | null }[] }>(
    `update monitors m set previous_secret_ciphertext = m.secret_ciphertext,
       previous_secret_expires_at = now() + make_interval(secs => ?),
       secret_ciphertext = ?, secret_revealed_at = now()
     from (select id, previous_secret_expires_at from monitors where id = ? for update) old
     where m.id = old.id
       and (? or old.previous_secret_expires_at is null or old.previous_secret_expires_at <= now())
     returning case when old.previous_secret_expires_at > now() then old.previous_secret_expires_at end as dropped_until`,
    [previousExpiresInSeconds, ciphertext, id, opts.force === true],
  );
  if (rows.length) return { outcome: 'rotated', droppedUntil: rows[0]!.dropped_until };
  const row = await db('monitors').select('previous_secret_expires_at').where({ id }).first();
  return row ? { outcome: 'in_progress', until: row.previous_secret_expires_at as Date } : { outcome: 'not_found' };
}

/** The ciphertexts of the secrets that sign a delivery now: the current one, and the previous one during a rotation. */
export async function signingSecrets(db: Knex, id: string): Promise<string[] | undefined> {
  const row = await db('monitors')
    .select('secret_ciphertext', db.raw('case when previous_secret_expires_at > now() then previous_secret_ciphertext end as previous'))
    .where({ id })
    .first();
  if (!row) return undefined;
  return row.previous ? [row.secret_ciphertext, row.previous] : [row.secret_ciphertext];
}

/**
 * A failed delivery attempt: the monitor is failing since its first failure after the last
 * success. Returns true when that is longer ago than `deactivateAfterSeconds` and the monitor is
 * active (the caller deactivates it).
 */
export async function markMonitorFailing(trx: Knex.Transaction, monitorId: string, deactivateAfterSeconds: number): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { due: boolean }[] }>(
    `update monitors set failing_since = coalesce(failing_since, now()) where id = ?
     returning active and failing_since <= now() - make_interval(secs => ?) as due`,
    [monitorId, deactivateAfterSeconds],
  );
  return rows[0]?.due === true;
}

/** Deactivates a monitor (`active: false`); its queued deliveries are cancelled by the caller (deliveries.cancelPending). */
export async function deactivateMonitor(trx: Knex.Transaction, monitorId: string): Promise<void> {
  await trx('monitors').where('id', monitorId).update({ active: false });
}

/**
 * Withdrawal of a subject (lake/suppression.ts, in its transaction): its monitors, in every
 * workspace, are deactivated and lose the slug and the label (which may name the person); their
 * deliveries (tests included, whose subject id is not set) are cancelled if still sendable, and every
 * stored payload loses its diff and subject; their events (tests included) leave the feed
 * (event_feed tombstones: the position stays for `after=`, the body goes). A monitor without a
 * subject is never reactivated (deliveries.ts recordSuccesses). Returns the monitors' ids.
 *
 * Three statements, not one: a test event being enqueued holds its monitor's row (lockMonitorSubject)
 * until it commits, so the first waits for it, and the next two, each with a snapshot taken after
 * that, see its rows and blank them too (a single statement's snapshot, taken before the wait,
 * would miss them).
 */
export async function withdrawSubjectMonitors(trx: Knex.Transaction, type: 'person' | 'company', slugs: readonly string[]): Promise<string[]> {
  if (!slugs.length) return [];
  const { rows } = await trx.raw<{ rows: { id: string }[] }>(
    `update monitors set active = false, subject_slug = null, label = null
      where type = ? and subject_slug = any(?::text[])
      returning id`,
    [type, [...new Set(slugs)]] as unknown as Knex.RawBinding[],
  );
  const ids = rows.map((r) => r.id);
  if (!ids.length) return [];
  await trx.raw(
    `update monitor_deliveries set
       state = case when state in ('pending', 'failed') then 'cancelled' else state end,
       next_attempt_at = null, completed_at = coalesce(completed_at, now()), lease_token = null, lease_until = null,
       body = (body::jsonb || '{"diff": null, "subject": null}'::jsonb)::text
      where monitor_id = any(?::uuid[])`,
    [ids] as unknown as Knex.RawBinding[],
  );
  await trx.raw(`update event_feed set body = null, subject_id = null where monitor_id = any(?::uuid[]) and body is not null`, [ids] as unknown as Knex.RawBinding[]);
  return ids;
}

/**
 * A test event's enqueueing (deliveries.ts enqueueTest): its monitor's row held until the
 * transaction ends, and its subject slug read under that lock (null: withdrawn meanwhile). A
 * withdrawal either went first (null here) or waits for the event and blanks it
 * (withdrawSubjectMonitors).
 */
export async function lockMonitorSubject(trx: Knex.Transaction, id: string): Promise<{ subject_slug: string | null } | undefined> {
  const { rows } = await trx.raw<{ rows: { subject_slug: string | null }[] }>('select subject_slug from monitors where id = ? for share', [id]);
  return rows[0];
}
