/**
 * The realtime operations (enrichPersonRealtime, enrichCompanyRealtime): a record at least as fresh
 * as `max_age`, from the lake (`cache`) or from the live source (`live`, written back through the
 * lake writer). Every 200 answer is metered with exactly one usage row; nothing else is metered.
 *
 * A call, top to bottom (realtime()):
 *   1. an Idempotency-Key already answered: that answer again, not metered; 451 when its subject
 *      was withdrawn since (replay());
 *   2. the lookup (lookUp()): the lake copy; 451 for a withdrawn identifier (the source is never
 *      asked); a copy younger than `max_age` (`cache`); otherwise one live fetch (fetchOnce());
 *   3. the outcome becomes the answer, or its error (answerOf(): one place for the messages);
 *   4. the answer is metered (meter(): one statement, with the answer stored under the
 *      Idempotency-Key; one place for the price).
 *
 * No database connection is held while the source is asked (issue 20): the copy is read, the fetch
 * runs with nothing open, and the write-back is one statement when the copy did not change and the
 * lake row was not written meanwhile (the usual case), else one short transaction of the writer. So calls waiting on a slow
 * source are bounded by the source's policy alone (LIVE_SOURCE_CONCURRENCY in flight,
 * LIVE_SOURCE_QUEUE waiting, beyond that 503 at once: resilience.ts), and lookups keep the pool.
 * One fetch per subject: concurrent calls in this process share it (Coalescer); across instances
 * the first takes a lease row (db/repositories/realtimeFetchLeases.ts) and the others poll for its
 * copy, fetched after they started, which they answer as `live`.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../model/records';
import type { CompanyKey, PersonKey } from '../../model/identifiers';
import { findCompanyCopy } from '../../db/repositories/companyRecords';
import { findPersonCopy } from '../../db/repositories/personRecords';
import { hasIdentifierTable } from '../../db/repositories/lakeIdentifiers';
import { endFetchLease, takeFetchLease, touchUnmovedCopy, type LeaseCopy } from '../../db/repositories/realtimeFetchLeases';
import { insertUsage, insertUsageWithAnswer } from '../../db/repositories/realtimeUsage';
import { REALTIME_UNIT_PRICE_DECIMAL, REALTIME_UNIT_PRICE_USD } from '../account/account';
import { AppError, notFound } from '../errors';
import { companyKeyFromQuery, personKeyFromQuery } from '../lake/identifiers';
import { dataSubjectBlocked, isRecordWithdrawn, isWithdrawn, recordDigests } from '../lake/suppression';
import { unchangedCopy, writeRecords } from '../lake/write/writer';
import { isRefusedValue, refusedValueReason } from '../../db/errors';
import type { Coalescer } from './coalesce';
import { claim, release, requestHash, type IdempotencyScope } from './idempotency';
import type { CompanyRef, LiveResult, LiveSource, UnavailableCause } from './source';

export const DEFAULT_MAX_AGE_SECONDS = 86_400;
/** How often an instance waiting for another instance's fetch of a subject looks for its copy. */
const LEASE_POLL_MS = 25;

export interface RealtimeDeps {
  db: Knex;
  source: LiveSource;
  coalescer: Coalescer;
  /** Told why the source could not answer (the server logs it; the client gets a plain 503). */
  onUnavailable?: (failure: { cause: UnavailableCause | 'contended' | 'unstorable'; reason: string }, kind: LakeKind) => void;
  /**
   * Longest wait for another instance's fetch of the same subject (its lease, which lives as long);
   * that fetch is itself bounded by the source deadline. Past it: 503. Default 10 s.
   */
  lockWaitMs?: number;
  now?: () => Date;
}

export interface RealtimeRequest {
  query: Record<string, unknown>;
  workspaceId: string;
  accountId: string;
  idempotencyKey?: string;
}

export interface RealtimeAnswer {
  source: 'cache' | 'live';
  /** The record as stored, as JSON text. */
  record: string;
  /** The stored answer of an earlier call with the same Idempotency-Key (not metered again). */
  replayed: boolean;
  /** What the answer was metered at (the body's `cost_usd`). */
  cost_usd: number;
}

interface Copy {
  id: string;
  username: string;
  fetched_at: Date;
  record: string;
}

interface KindRules {
  kind: LakeKind;
  operationId: 'enrichPersonRealtime' | 'enrichCompanyRealtime';
  key: PersonKey | CompanyKey;
  findCopy(db: Knex): Promise<Copy | undefined>;
  /** What to ask the source for, or undefined when only the lake could say (a service id). */
  sourceRef(copy: Copy | undefined): CompanyRef | undefined;
  fetch(ref: CompanyRef): Promise<LiveResult<PersonRecord | CompanyRecord>>;
  noun: string;
}

/** What a lookup came to. */
type Found = { status: 'found'; source: 'cache' | 'live'; id: string; record: string };
type Outcome =
  | Found
  /** The source has no such subject. */
  | { status: 'not_found' }
  /** An id the lake does not hold (the source knows no service ids). */
  | { status: 'not_indexed' }
  | { status: 'withdrawn' }
  /** `contended`: another instance's fetch of the subject outlasted our wait. */
  | { status: 'unavailable'; cause: UnavailableCause | 'contended'; reason: string }
  /**
   * The source's copy cannot be stored (issue 32, row 8): text the database cannot hold (`field`
   * names where, text.ts) or a value a statement refused (`reason`, for the log only).
   */
  | { status: 'unstorable'; reason: string; field?: string };

export function enrichPersonRealtime(deps: RealtimeDeps, req: RealtimeRequest): Promise<RealtimeAnswer> {
  const key = personKeyFromQuery(req.query);
  return realtime(deps, req, {
    kind: 'person',
    operationId: 'enrichPersonRealtime',
    key,
    findCopy: (db) => findPersonCopy(db, key.by, key.value),
    sourceRef: (copy) => (copy ? { username: copy.username } : key.by === 'username' ? { username: key.value } : undefined),
    fetch: (ref) => deps.source.person((ref as { username: string }).username),
    noun: 'profile',
  });
}

export function enrichCompanyRealtime(deps: RealtimeDeps, req: RealtimeRequest): Promise<RealtimeAnswer> {
  const key = companyKeyFromQuery(req.query);
  return realtime(deps, req, {
    kind: 'company',
    operationId: 'enrichCompanyRealtime',
    key,
    findCopy: (db) => findCompanyCopy(db, key.by, key.value),
    sourceRef: (copy) =>
      copy
        ? { username: copy.username }
        : key.by === 'username'
          ? { username: key.value }
          : key.by === 'company_id'
            ? { companyId: key.value }
            : undefined,
    fetch: (ref) => deps.source.company(ref),
    noun: 'company',
  });
}

async function realtime(deps: RealtimeDeps, req: RealtimeRequest, rules: KindRules): Promise<RealtimeAnswer> {
  const scope: IdempotencyScope | undefined = req.idempotencyKey
    ? { workspaceId: req.workspaceId, key: req.idempotencyKey, requestHash: requestHash(rules.operationId, req.query) }
    : undefined;
  if (scope) {
    const claimed = await claim(deps.db, scope);
    if (claimed.kind === 'replay') return replay(deps.db, rules.kind, claimed.response);
  }
  let metered = false;
  try {
    const found = answerOf(deps, rules, await lookUp(deps, req, rules));
    await meter(deps.db, req, rules, scope, found);
    metered = true;
    return { source: found.source, record: found.record, replayed: false, cost_usd: REALTIME_UNIT_PRICE_USD };
  } finally {
    // After an error the key is free again.
    if (scope && !metered) await release(deps.db, scope);
  }
}

/**
 * The answer stored under an Idempotency-Key, again. A withdrawal erases such answers (the key then
 * answers 451 in claim()); the stored record's own identifiers are checked too, so no copy of a
 * withdrawn subject is served whatever identifier withdrew it.
 */
async function replay(db: Knex, kind: LakeKind, response: string): Promise<RealtimeAnswer> {
  const stored = JSON.parse(response) as { source: 'cache' | 'live'; data: PersonRecord | CompanyRecord };
  if (await isRecordWithdrawn(db, kind, stored.data)) throw dataSubjectBlocked();
  return { source: stored.source, record: JSON.stringify(stored.data), replayed: true, cost_usd: REALTIME_UNIT_PRICE_USD };
}

async function lookUp(deps: RealtimeDeps, req: RealtimeRequest, rules: KindRules): Promise<Outcome> {
  const started = (deps.now ?? (() => new Date()))();
  const maxAge = typeof req.query.max_age === 'number' ? req.query.max_age : DEFAULT_MAX_AGE_SECONDS;
  // As every read by identifier: a record in the lake is not withdrawn (a withdrawal deletes it);
  // only a miss asks the tombstones, and a withdrawn identifier never reaches the source.
  const copy = await rules.findCopy(deps.db);
  if (!copy && (await isWithdrawn(deps.db, rules.kind, rules.key))) return { status: 'withdrawn' };
  if (copy && maxAge > 0 && started.getTime() - copy.fetched_at.getTime() < maxAge * 1000) return found('cache', copy);
  const ref = rules.sourceRef(copy);
  if (!ref) return { status: 'not_indexed' };
  // The subject's one key: of the in-process coalescing and of the cross-instance lease.
  const subject = `realtime:${rules.kind}:${'username' in ref ? `username:${ref.username}` : `company_id:${ref.companyId}`}`;
  return deps.coalescer.run(subject, () => fetchOnce(deps, rules, ref, subject, copy, started));
}

const found = (source: 'cache' | 'live', copy: Copy): Found => ({ status: 'found', source, id: copy.id, record: copy.record });

/**
 * The one live fetch of a subject, holding no connection while the source is asked: take the
 * subject's lease (while another instance holds it, wait for that instance's copy), then, unless a
 * copy fetched since `started` is already there, ask the source and write the answer back through
 * the lake writer, ending the lease in the same transaction. The lake's id is kept for a known
 * subject (`copy`, as the lookup found it).
 */
async function fetchOnce(
  deps: RealtimeDeps,
  rules: KindRules,
  ref: CompanyRef,
  subject: string,
  copy: Copy | undefined,
  started: Date,
): Promise<Outcome> {
  const waitMs = deps.lockWaitMs ?? 10_000;
  const token = randomUUID();
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    const lease = await takeFetchLease(deps.db, subject, token, waitMs, { kind: rules.kind, ...ref } as LeaseCopy);
    // A copy fetched since we started (by another instance, meanwhile) is the answer.
    if (lease.fetched_at && lease.fetched_at.getTime() >= started.getTime()) {
      if (lease.taken) await endFetchLease(deps.db, subject, token);
      const fresh = await rules.findCopy(deps.db);
      if (fresh) return found('live', fresh);
    }
    if (lease.taken) break;
    if (Date.now() >= giveUpAt) return { status: 'unavailable', cause: 'contended', reason: 'another instance is still fetching this record' };
    await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
  }
  let leaseEnded = false;
  try {
    const result = await rules.fetch(ref);
    if (result.status !== 'found') return result;
    const record = { ...result.record, id: copy?.id ?? result.record.id, fetched_at: (deps.now ?? (() => new Date()))().toISOString() };
    // The usual case, a copy whose content did not change, in one statement (no lock, no
    // transaction of several round trips): written only if the lake row still has the fetched_at
    // the lookup read, else by the lake writer below, which locks and diffs (and refuses a
    // withdrawn subject). Not on the distributed layout, whose writes go through the writer.
    if (copy && !(await hasIdentifierTable(deps.db))) {
      const unchanged = unchangedCopy(rules.kind, copy, record as never);
      if (unchanged) {
        const row = { id: copy.id, readAt: copy.fetched_at, fetchedAt: record.fetched_at, ...unchanged.touch };
        if (await touchUnmovedCopy(deps.db, rules.kind, row, { subject, token })) {
          leaseEnded = true;
          return { status: 'found', source: 'live', id: copy.id, record: unchanged.text };
        }
      }
    }
    let outcome;
    try {
      outcome = await deps.db.transaction(async (trx) => {
        const written = await writeRecords(trx, rules.kind, [record as never], { origin: 'realtime' });
        // A copy that only moved its fetched_at commits without waiting for the WAL flush: the usage
        // row of the answer commits durably after it (meter()), which flushes this write too, before
        // the answer goes out. A write with changes (change log, webhook events) waits, as always.
        await endFetchLease(trx, subject, token, { flushLater: written.changes.length === 0 });
        return written;
      });
    } catch (err) {
      // A value of the source's copy that a statement refused: the source's fault, not the caller's.
      if (!isRefusedValue(err)) throw err;
      return { status: 'unstorable', reason: refusedValueReason(err) };
    }
    leaseEnded = true;
    const refused = outcome.unstorable[0];
    if (refused) return { status: 'unstorable', reason: refused.reason, field: refused.reason };
    if (outcome.withdrawn) return { status: 'withdrawn' };
    const stored = outcome.stored.get(record.id.toLowerCase());
    if (stored === undefined) throw new Error('realtime write-back: the record was not written');
    return { status: 'found', source: 'live', id: record.id, record: stored };
  } finally {
    if (!leaseEnded) await endFetchLease(deps.db, subject, token).catch(() => undefined);
  }
}

/** The answer, or the error a client gets for each other outcome (none of them is metered). */
function answerOf(deps: RealtimeDeps, rules: KindRules, outcome: Outcome): Found {
  switch (outcome.status) {
    case 'found':
      return outcome;
    case 'not_found':
      throw notFound(`The live source has no such ${rules.noun}.`);
    case 'not_indexed':
      throw notFound(`No ${rules.noun} with this id is indexed in the data lake (the live source does not know service IDs).`);
    case 'withdrawn':
      throw dataSubjectBlocked();
    case 'unavailable':
      deps.onUnavailable?.(outcome, rules.kind);
      throw new AppError(
        'LIVE_SOURCE_UNAVAILABLE',
        UNAVAILABLE_MESSAGES[outcome.cause],
        // A full queue drains as the calls in flight end (each bounded by the source deadline).
        outcome.cause === 'busy' ? { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) } : {},
      );
    case 'unstorable':
      deps.onUnavailable?.({ cause: 'unstorable', reason: outcome.reason }, rules.kind);
      throw new AppError(
        'LIVE_SOURCE_UNAVAILABLE',
        `The live source's record for this ${rules.noun} cannot be stored` +
          (outcome.field ? ` (${outcome.field})` : ' (a value the database refuses)') +
          `; it was neither stored nor served. The call was not metered. The background refresh asks the source for it again later; GET /${rules.kind} serves the copy the data lake holds.`,
      );
  }
}

/** Retry-After of the 503 of a full live-source queue (`busy`): the queue drains as calls end. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

const UNAVAILABLE_MESSAGES: Record<UnavailableCause | 'contended', string> = {
  deadline: 'The live source did not answer in time. The call was not metered; retry later.',
  busy: 'The live source is busy: too many realtime calls are waiting for it. The call was not metered; retry later.',
  circuit_open: 'The live source is unavailable. The call was not metered; retry later.',
  failed: 'The live source failed to answer (an error status, a refused connection or an invalid answer). The call was not metered; retry later.',
  none: 'The live source is unavailable. The call was not metered; retry later.',
  contended: 'The live source is unavailable. The call was not metered; retry later.',
};

/**
 * One usage row at the price of one answer (account.ts), and for a call with an Idempotency-Key the
 * answer stored under it, in the same statement. `found.id` lets a withdrawal erase that answer;
 * the record's digests make the store and a withdrawal exclusive (realtimeUsage.ts): a withdrawal
 * committed since the record was read leaves nothing stored and nothing metered, and answers 451.
 */
async function meter(db: Knex, req: RealtimeRequest, rules: KindRules, scope: IdempotencyScope | undefined, found: Found): Promise<void> {
  const usage = { workspaceId: req.workspaceId, accountId: req.accountId, operationId: rules.operationId, costUsd: REALTIME_UNIT_PRICE_DECIMAL };
  if (!scope) return insertUsage(db, usage);
  const response = `{"source":${JSON.stringify(found.source)},"data":${found.record}}`;
  const digests = recordDigests(rules.kind, JSON.parse(found.record) as PersonRecord | CompanyRecord);
  if (!(await insertUsageWithAnswer(db, usage, { key: scope.key, response, subjectId: found.id, digests }))) throw dataSubjectBlocked();
}
