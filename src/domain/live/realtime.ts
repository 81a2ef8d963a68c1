/**
 * The realtime operations (enrichPersonRealtime, enrichCompanyRealtime): a record at least as fresh
 * as `max_age`, from the lake (`cache`) or from the live source (`live`, written back through the
 * lake writer). Every 200 answer is metered with one usage row, written in the transaction of the
 * answer's effect (the write-back, or the answer alone for a cache hit); nothing else is metered.
 *
 * Order of checks: Idempotency-Key replay; 451 for a withdrawn identifier (the source is never
 * asked); the lake copy and its age; then one live fetch per subject at a time: concurrent calls in
 * this process share it (Coalescer), and across instances an advisory lock makes the second one
 * wait and then find the first one's copy, fetched after it started, which it answers as `live`.
 */
import type { Knex } from 'knex';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../model/records';
import { findCompanyCopy } from '../../db/repositories/companyRecords';
import { findPersonCopy } from '../../db/repositories/personRecords';
import { isLockTimeout, withTransactionLock } from '../../db/repositories/locks';
import { insertUsage } from '../../db/repositories/realtimeUsage';
import { REALTIME_UNIT_PRICE_DECIMAL } from '../account/account';
import { AppError, notFound } from '../errors';
import type { CompanyKey, PersonKey } from '../../model/identifiers';
import { companyKeyFromQuery, personKeyFromQuery } from '../lake/identifiers';
import { assertNotWithdrawn, dataSubjectBlocked } from '../lake/suppression';
import { writeRecords } from '../lake/write/writer';
import type { Coalescer } from './coalesce';
import { claim, complete, release, requestHash, type IdempotencyScope } from './idempotency';
import type { CompanyRef, LiveResult, LiveSource } from './source';

export const DEFAULT_MAX_AGE_SECONDS = 86_400;

export interface RealtimeDeps {
  db: Knex;
  source: LiveSource;
  coalescer: Coalescer;
  /** Told why the source could not answer (the server logs it; the client gets a plain 503). */
  onUnavailable?: (reason: string, kind: LakeKind) => void;
  /**
   * Longest wait for another instance's fetch of the same subject (its advisory lock); that fetch
   * is itself bounded by the source deadline. Past it: 503. Default 10 s.
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

type Fetched = { status: 'found'; record: string } | { status: 'not_found' } | { status: 'withdrawn' } | { status: 'unavailable'; reason: string };

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

const refKey = (ref: CompanyRef) => ('username' in ref ? `username:${ref.username}` : `company_id:${ref.companyId}`);

async function realtime(deps: RealtimeDeps, req: RealtimeRequest, rules: KindRules): Promise<RealtimeAnswer> {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const started = now();
  const maxAge = typeof req.query.max_age === 'number' ? req.query.max_age : DEFAULT_MAX_AGE_SECONDS;
  const scope: IdempotencyScope | undefined = req.idempotencyKey
    ? { workspaceId: req.workspaceId, key: req.idempotencyKey, requestHash: requestHash(rules.operationId, req.query) }
    : undefined;
  if (scope) {
    const claimed = await claim(db, scope);
    if (claimed.kind === 'replay') {
      const stored = JSON.parse(claimed.response) as { source: 'cache' | 'live'; data: unknown };
      return { source: stored.source, record: JSON.stringify(stored.data), replayed: true };
    }
  }

  /** Meters one answer inside `trx` (with the stored Idempotency-Key answer). */
  const meter = async (trx: Knex.Transaction, source: 'cache' | 'live', record: string) => {
    await insertUsage(trx, {
      workspaceId: req.workspaceId,
      accountId: req.accountId,
      operationId: rules.operationId,
      costUsd: REALTIME_UNIT_PRICE_DECIMAL,
    });
    if (scope) await complete(trx, scope, `{"source":${JSON.stringify(source)},"data":${record}}`);
  };

  let metered = false;
  try {
    // As every read by identifier: a record in the lake is not withdrawn (a withdrawal deletes it);
    // only a miss asks the tombstones, and a withdrawn identifier never reaches the source.
    const copy = await rules.findCopy(db);
    if (!copy) await assertNotWithdrawn(db, rules.kind, rules.key);
    if (copy && maxAge > 0 && started.getTime() - copy.fetched_at.getTime() < maxAge * 1000) {
      await db.transaction((trx) => meter(trx, 'cache', copy.record));
      metered = true;
      return { source: 'cache', record: copy.record, replayed: false };
    }
    const ref = rules.sourceRef(copy);
    if (!ref) throw notFound(`No ${rules.noun} with this id is indexed in the data lake (the live source does not know service IDs).`);

    let meteredByFetch = false;
    const lockName = `realtime:${rules.kind}:${refKey(ref)}`;
    const { value } = await deps.coalescer.run(lockName, () =>
      fetchAndWrite(deps, rules, ref, lockName, started, now, async (trx, record) => {
        await meter(trx, 'live', record);
        meteredByFetch = true;
      }),
    );
    if (value.status === 'found') {
      if (!meteredByFetch) await db.transaction((trx) => meter(trx, 'live', value.record));
      metered = true;
      return { source: 'live', record: value.record, replayed: false };
    }
    if (value.status === 'not_found') throw notFound(`The live source has no such ${rules.noun}.`);
    if (value.status === 'withdrawn') throw dataSubjectBlocked();
    deps.onUnavailable?.(value.reason, rules.kind);
    throw new AppError(
      'LIVE_SOURCE_UNAVAILABLE',
      /within/.test(value.reason)
        ? 'The live source did not answer in time. The call was not metered; retry later.'
        : 'The live source is unavailable. The call was not metered; retry later.',
    );
  } finally {
    if (scope && !metered) await release(db, scope);
  }
}

/**
 * The one live fetch of a subject: under its advisory lock, unless another instance fetched it
 * since `started`, ask the source and write the answer back through the lake writer; the caller's
 * usage row goes into the same transaction (`meter`). The lake's id is kept for a known subject.
 */
async function fetchAndWrite(
  deps: RealtimeDeps,
  rules: KindRules,
  ref: CompanyRef,
  lockName: string,
  started: Date,
  now: () => Date,
  meter: (trx: Knex.Transaction, record: string) => Promise<void>,
): Promise<Fetched> {
  return withTransactionLock(deps.db, lockName, deps.lockWaitMs ?? 10_000, async (trx): Promise<Fetched> => {
    const current = await rules.findCopy(trx);
    if (current && current.fetched_at.getTime() >= started.getTime()) {
      await meter(trx, current.record);
      return { status: 'found', record: current.record };
    }
    const result = await rules.fetch(ref);
    if (result.status !== 'found') return result;
    const record = { ...result.record, id: current?.id ?? result.record.id, fetched_at: now().toISOString() };
    const outcome = await writeRecords(trx, rules.kind, [record as never], { origin: 'realtime' });
    if (outcome.withdrawn) return { status: 'withdrawn' };
    const stored = outcome.stored.get(record.id.toLowerCase());
    if (stored === undefined) throw new Error('realtime write-back: the record was not written');
    await meter(trx, stored);
    return { status: 'found', record: stored };
  }).catch((err): Fetched => {
    if (isLockTimeout(err)) return { status: 'unavailable', reason: 'another instance is still fetching this record' };
    throw err;
  });
}
