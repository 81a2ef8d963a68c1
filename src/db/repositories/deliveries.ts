/**
 * Webhook deliveries (migration 20261202000100_monitor_deliveries): the delivery worker's job queue
 * (claimed with FOR UPDATE SKIP LOCKED and a lease, as the refresh queue is) and the delivery log.
 * Every write that ends an attempt presents the lease token, so a worker whose lease expired and
 * was taken over records nothing. Plain values in, plain rows out.
 */
import type { Knex } from 'knex';
import { boundedCount, pageQuery, splitPage, term, totalOf, type ListResult, type OrderTerm, type Page } from './pages';

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface StoredAttempt {
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export interface DeliveryRow {
  id: string;
  monitor_id: string;
  event: string;
  state: DeliveryState;
  attempts: StoredAttempt[];
  next_attempt_at: Date | null;
  created_at: Date;
}

const LOG_COLUMNS = ['id', 'monitor_id', 'event', 'state', 'attempts', 'next_attempt_at', 'created_at'];

export interface NewDelivery {
  id: string;
  monitor_id: string;
  event: string;
  change_id: number | null;
  subject_id: string | null;
  destination: string;
  body: string;
  manual: boolean;
}

export interface SubscribedMonitor {
  monitor_id: string;
  workspace_id: string;
  /** An inactive monitor's events go to the feed only, not to its webhook. */
  active: boolean;
  subject_id: string;
  events: string[];
  webhook_url: string;
  /** The subject's identifiers, for the payload's `subject`. */
  username: string;
  network_url: string | null;
}

const LAKE = { person: 'persons', company: 'companies' } as const;

/**
 * The monitors on these lake records (matched by the record's username, as the watchers are),
 * active or not: a deactivated monitor's events still go to the feed (issue 32).
 */
export async function subscribedMonitors(
  trx: Knex.Transaction,
  kind: 'person' | 'company',
  subjectIds: readonly string[],
): Promise<SubscribedMonitor[]> {
  if (!subjectIds.length) return [];
  const { rows } = await trx.raw<{ rows: SubscribedMonitor[] }>(
    `select m.id as monitor_id, m.workspace_id, m.active, l.id as subject_id, m.events, m.webhook_url,
       l.username, l.record->>'network_url' as network_url
     from ${LAKE[kind]} l join monitors m on m.type = ? and m.subject_slug = l.username
     where l.id = any(?::uuid[])`,
    [kind, subjectIds as string[]],
  );
  return rows;
}

/** One statement for the batch; each row is due now. */
export async function insertDeliveries(db: Knex | Knex.Transaction, rows: readonly NewDelivery[]): Promise<void> {
  if (!rows.length) return;
  await db.raw(
    `insert into monitor_deliveries (id, monitor_id, event, change_id, subject_id, destination, body, manual, next_attempt_at)
     select id, monitor_id, event, change_id, subject_id, destination, body, manual, now()
     from unnest(?::uuid[], ?::uuid[], ?::text[], ?::bigint[], ?::uuid[], ?::text[], ?::text[], ?::boolean[])
       as t(id, monitor_id, event, change_id, subject_id, destination, body, manual)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.monitor_id),
      rows.map((r) => r.event),
      rows.map((r) => r.change_id),
      rows.map((r) => r.subject_id),
      rows.map((r) => r.destination),
      rows.map((r) => r.body),
      rows.map((r) => r.manual),
    ] as unknown as Knex.RawBinding[],
  );
}

/** The license rule of the API's 402 (domain/auth/principal.ts licenseState), in SQL over `workspaces w`. */
const LICENSE_IS_ACTIVE = `w.license_status = 'active' and (w.license_expires_at is null or w.license_expires_at > now())`;
/**
 * Whether a pending delivery `d` of monitor `m` (workspace `w`) may go out: deliveries of an
 * inactive monitor wait, except tests and redeliveries; every delivery of a workspace without an
 * active license waits. The claim and the backlog gauge share it.
 */
const DELIVERABLE = `(m.active or d.manual) and ${LICENSE_IS_ACTIVE}`;

export interface ClaimedDelivery {
  id: string;
  monitor_id: string;
  destination: string;
  body: string;
  /** Attempts made before this one. */
  attempts_made: number;
  /** Attempts allowed in all; null = the retry schedule's. */
  max_attempts: number | null;
  manual: boolean;
  webhook_url: string;
  /** Ciphertexts of the secrets that sign now: the current one, and the previous one during a rotation. */
  secrets: string[];
}

/**
 * Claims up to `limit` due deliveries whose lease is free or expired, oldest due first, at most
 * `perDestination` minus what this worker already has in flight (`inFlight`, host:port -> count)
 * per destination, so one busy receiver's backlog never fills a claim. Rows another worker is
 * claiming are skipped (SKIP LOCKED). Deliveries of an inactive monitor wait, except tests and
 * redeliveries. Every delivery of a workspace without an active license (inactive, or past its end
 * date) waits (LICENSE_IS_ACTIVE): paused, not dropped, due again the moment the license is active
 * again (issue 20: such a workspace still received deliveries while every call of its own was 402).
 */
export async function claimDue(
  db: Knex,
  opts: { token: string; limit: number; leaseSeconds: number; perDestination: number; inFlight: Readonly<Record<string, number>> },
): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  const { rows } = await db.raw<{ rows: ClaimedDelivery[] }>(
    `with recursive dests(destination) as (
       -- Every destination with pending deliveries, one index probe each (a loose index scan).
       (select destination from monitor_deliveries where state = 'pending' order by destination limit 1)
       union all
       select (select destination from monitor_deliveries
               where state = 'pending' and destination > dests.destination order by destination limit 1)
       from dests where dests.destination is not null),
     candidates as (
       select c.id, c.next_attempt_at from dests cross join lateral (
         select d.id, d.next_attempt_at from monitor_deliveries d join monitors m on m.id = d.monitor_id
           join workspaces w on w.id = m.workspace_id
         where d.destination = dests.destination and d.state = 'pending' and d.next_attempt_at <= now()
           and (d.lease_until is null or d.lease_until < now())
           and ${DELIVERABLE}
         order by d.next_attempt_at
         limit greatest(?::int - coalesce((?::jsonb ->> dests.destination)::int, 0), 0)) c
       where dests.destination is not null),
     due as (
       select d.id from monitor_deliveries d join candidates c on c.id = d.id
       where d.state = 'pending' and (d.lease_until is null or d.lease_until < now())
       order by c.next_attempt_at limit ? for update of d skip locked),
     claimed as (
       update monitor_deliveries d set lease_token = ?, lease_until = now() + make_interval(secs => ?)
       from due where d.id = due.id
       returning d.id, d.monitor_id, d.destination, d.body, jsonb_array_length(d.attempts) as attempts_made, d.max_attempts, d.manual)
     select c.*, m.webhook_url,
       array_remove(array[m.secret_ciphertext,
         case when m.previous_secret_expires_at > now() then m.previous_secret_ciphertext end], null) as secrets
     from claimed c join monitors m on m.id = c.monitor_id`,
    [opts.perDestination, JSON.stringify(opts.inFlight), opts.limit, opts.token, opts.leaseSeconds],
  );
  return rows;
}

/** Gives rows back without an attempt (shutdown, over the per-destination cap): due again at once. */
export async function releaseLeases(db: Knex, token: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  return db('monitor_deliveries')
    .whereIn('id', ids as string[])
    .andWhere('lease_token', token)
    .update({ lease_token: null, lease_until: null });
}

export type AttemptOutcome =
  | { state: 'succeeded' }
  | { state: 'pending'; retryInSeconds: number }
  | { state: 'failed' };

/**
 * Records a failed attempt and its outcome (retry or failed), if `token` still holds the lease. Returns false when the
 * lease was lost (expired and taken over, or the monitor deleted): nothing is written then.
 */
export async function recordAttempt(
  trx: Knex.Transaction,
  id: string,
  token: string,
  attempt: StoredAttempt,
  outcome: Exclude<AttemptOutcome, { state: 'succeeded' }>,
): Promise<boolean> {
  const pending = outcome.state === 'pending';
  const { rowCount } = await trx.raw<{ rowCount: number }>(
    `update monitor_deliveries set
       attempts = attempts || ?::jsonb,
       state = ?,
       next_attempt_at = case when ? then now() + make_interval(secs => ?) end,
       completed_at = case when ? then null else now() end,
       lease_token = null, lease_until = null
     where id = ? and lease_token = ?`,
    [JSON.stringify([attempt]), outcome.state, pending, pending ? outcome.retryInSeconds : 0, pending, id, token],
  );
  return (rowCount ?? 0) > 0;
}

export interface SuccessRecord {
  id: string;
  token: string;
  attempt: StoredAttempt;
  /** A test event or a redelivery: a 2xx reactivates the monitor. */
  reactivate: boolean;
}

/**
 * Many 2xx at once (the worker gathers them for a few milliseconds): one statement records each
 * attempt whose lease `token` still holds, and clears or reactivates their monitors where that
 * changes something (never a monitor whose subject was withdrawn: its slug is null). Returns the ids
 * recorded (a lost lease records nothing).
 */
export async function recordSuccesses(db: Knex, items: readonly SuccessRecord[]): Promise<Set<string>> {
  if (!items.length) return new Set();
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `with input as (
       select * from unnest(?::uuid[], ?::uuid[], ?::jsonb[], ?::boolean[]) as t(id, token, attempt, reactivate)),
     d as (
       update monitor_deliveries md set attempts = md.attempts || jsonb_build_array(i.attempt), state = 'succeeded',
         next_attempt_at = null, completed_at = now(), lease_token = null, lease_until = null
       from input i where md.id = i.id and md.lease_token = i.token
       returning md.id, md.monitor_id, i.reactivate),
     m as (
       update monitors mo set failing_since = null, active = mo.active or (x.reactivate and mo.subject_slug is not null)
       from (select monitor_id, bool_or(reactivate) as reactivate from d group by monitor_id) x
       where mo.id = x.monitor_id and (mo.failing_since is not null or (x.reactivate and not mo.active))
       returning mo.id)
     select id from d`,
    [items.map((i) => i.id), items.map((i) => i.token), items.map((i) => JSON.stringify(i.attempt)), items.map((i) => i.reactivate)] as unknown as Knex.RawBinding[],
  );
  return new Set(rows.map((r) => r.id));
}

/** A deactivated monitor's queued deliveries (tests and redeliveries included) are cancelled. */
export async function cancelPending(trx: Knex.Transaction, monitorId: string): Promise<number> {
  return trx('monitor_deliveries')
    .where({ monitor_id: monitorId, state: 'pending' })
    .update({ state: 'cancelled', next_attempt_at: null, completed_at: trx.fn.now(), lease_token: null, lease_until: null });
}

/**
 * Withdrawal of a subject: its deliveries that could still be sent (pending, failed) are cancelled,
 * and every one of them loses the diff of its body and its subject id.
 */
export async function forgetSubject(trx: Knex.Transaction, subjectId: string): Promise<number> {
  const { rowCount } = await trx.raw<{ rowCount: number }>(
    `update monitor_deliveries set
       state = case when state in ('pending', 'failed') then 'cancelled' else state end,
       next_attempt_at = null,
       completed_at = coalesce(completed_at, now()),
       lease_token = null, lease_until = null,
       body = (body::jsonb || '{"diff": null, "subject": null}'::jsonb)::text,
       subject_id = null
     where subject_id = ?`,
    [subjectId],
  );
  return rowCount ?? 0;
}

/** The delivery log's order: newest first, ties broken by id (the index monitor_deliveries_monitor). */
const LOG_ORDER: OrderTerm[] = [term('created_at', 'desc', 'timestamptz'), term('id', 'asc', 'uuid')];

export async function listForMonitor(db: Knex, monitorId: string, page: Page): Promise<ListResult<DeliveryRow>> {
  const base = () => db('monitor_deliveries').where('monitor_id', monitorId);
  const [rows, count] = await Promise.all([
    pageQuery(db, base().select(LOG_COLUMNS), LOG_ORDER, page) as Promise<DeliveryRow[]>,
    boundedCount(db, base().select(db.raw('1'))) as Promise<{ count: number }[]>,
  ]);
  const split = splitPage(rows as unknown as Record<string, unknown>[], LOG_ORDER, page);
  return { rows: split.rows as unknown as DeliveryRow[], next: split.next, ...totalOf(count) };
}

export async function findDelivery(db: Knex, monitorId: string, id: string): Promise<DeliveryRow | undefined> {
  return db('monitor_deliveries').select(LOG_COLUMNS).where({ monitor_id: monitorId, id }).first();
}

/** A failed delivery becomes pending with one attempt due now; undefined when it is not failed (or unknown). */
export async function requeueFailed(db: Knex, monitorId: string, id: string): Promise<DeliveryRow | undefined> {
  const rows = await db('monitor_deliveries')
    .where({ monitor_id: monitorId, id, state: 'failed' })
    .update({
      state: 'pending',
      max_attempts: db.raw('jsonb_array_length(attempts) + 1'),
      manual: true,
      next_attempt_at: db.fn.now(),
      completed_at: null,
    })
    .returning(LOG_COLUMNS);
  return rows[0] as DeliveryRow | undefined;
}

/** Pending deliveries by what they wait for (the backlog gauge). */
export interface DeliveryBacklog {
  /** May go out now: a worker claims them at its next poll. */
  due: number;
  /** Waiting for their next attempt's time (a retry's backoff). */
  scheduled: number;
  /** Claimed by a worker right now. */
  leased: number;
  /** Held by an inactive monitor or a workspace without an active license: not due until that changes. */
  paused: number;
}

export async function deliveryBacklog(db: Knex): Promise<DeliveryBacklog> {
  const { rows } = await db.raw<{ rows: Record<keyof DeliveryBacklog, string>[] }>(
    `with pending as (
       select d.lease_until > now() as leased, ${DELIVERABLE} as deliverable, d.next_attempt_at <= now() as at_time
       from monitor_deliveries d join monitors m on m.id = d.monitor_id join workspaces w on w.id = m.workspace_id
       where d.state = 'pending')
     select count(*) filter (where leased) as leased,
            count(*) filter (where leased is not true and not deliverable) as paused,
            count(*) filter (where leased is not true and deliverable and at_time) as due,
            count(*) filter (where leased is not true and deliverable and not at_time) as scheduled
     from pending`,
  );
  const row = rows[0];
  return { due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0), leased: Number(row?.leased ?? 0), paused: Number(row?.paused ?? 0) };
}
