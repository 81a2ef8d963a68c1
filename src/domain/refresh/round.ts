/**
 * One refresh batch and one refresh round. A batch: claim due records (oldest checked first, the
 * watched lane ahead), ask the live source for all of them in one call, and write the answers
 * through the lake writer in one transaction, fenced by the batch's lease token: only records this
 * worker still holds are written, each diffed against its stored copy, with its changes logged in
 * the same transaction. Records the source does not know are marked checked (back of the queue);
 * when the source cannot answer, the leases are given back and nothing is written. A worker that
 * dies mid-batch leaves leases that expire after `leaseSeconds`, and its records are due again.
 *
 * A round repeats batches until nothing due before a fixed cutoff is left, so each due record is
 * refreshed once per round however many workers share it.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { CompanyRecord, PersonRecord } from '../../model/records';
import { claimDue, markChecked, releaseLeases, type QueueKind } from '../../db/repositories/refreshQueue';
import { writeRecords } from '../lake/write/writer';
import type { LiveSource } from '../live/source';
import type { ChangeEntry } from '../lake/write/diff';

export interface RefreshObserver {
  records(kind: QueueKind, outcome: string, count: number): void;
  changes(entries: readonly ChangeEntry[]): void;
}

export interface BatchOptions {
  batchSize: number;
  leaseSeconds: number;
  dueBefore: Date;
  watchedDueBefore: Date;
}

export interface BatchReport {
  kind: QueueKind;
  claimed: number;
  changed: number;
  unchanged: number;
  notFound: number;
  unavailable: number;
  /** Written by nobody: the lease was taken over (this worker was too slow) or the subject withdrawn. */
  dropped: number;
  changes: number;
  /** Why the source could not answer, when it could not. */
  reason?: string;
}

export interface RefreshDeps {
  db: Knex;
  source: LiveSource;
  observer?: RefreshObserver;
  now?: () => Date;
}

export async function refreshBatch(deps: RefreshDeps, kind: QueueKind, opts: BatchOptions): Promise<BatchReport> {
  const { db, source } = deps;
  const report: BatchReport = { kind, claimed: 0, changed: 0, unchanged: 0, notFound: 0, unavailable: 0, dropped: 0, changes: 0 };
  const token = randomUUID();
  const claimed = await claimDue(db, kind, { token, limit: opts.batchSize, ...opts });
  report.claimed = claimed.length;
  if (!claimed.length) return report;
  const ids = claimed.map((c) => c.id);
  try {
    const usernames = claimed.map((c) => c.username);
    const answer = kind === 'person' ? await source.persons(usernames) : await source.companies(usernames);
    if (answer.status === 'unavailable') {
      report.unavailable = claimed.length;
      report.reason = answer.reason;
      deps.observer?.records(kind, 'unavailable', claimed.length);
      return report;
    }
    const verifiedAt = (deps.now ?? (() => new Date()))().toISOString();
    const records: (PersonRecord | CompanyRecord)[] = [];
    const missing: string[] = [];
    answer.records.forEach((record, i) => {
      const row = claimed[i]!;
      if (record === null) missing.push(row.id);
      // The lake's id stays; fetched_at is the time of this verification.
      else records.push({ ...record, id: row.id, fetched_at: verifiedAt });
    });
    await markChecked(db, kind, token, missing);
    report.notFound = missing.length;
    const outcome = await writeRecords(db, kind, records as never[], { origin: 'refresh', leaseToken: token });
    report.unchanged = outcome.unchanged;
    report.changed = outcome.written - outcome.unchanged;
    report.dropped = outcome.stale + outcome.withdrawn;
    report.changes = outcome.changes.length;
    const o = deps.observer;
    if (o) {
      o.records(kind, 'changed', report.changed);
      o.records(kind, 'unchanged', report.unchanged);
      o.records(kind, 'not_found', report.notFound);
      o.records(kind, 'dropped', report.dropped);
      o.changes(outcome.changes);
    }
    return report;
  } finally {
    // Whatever is still leased with this token (source failure, dropped records, an error) is due again.
    await releaseLeases(db, kind, token, ids).catch(() => undefined);
  }
}

export interface RoundReport {
  batches: number;
  claimed: number;
  changed: number;
  unchanged: number;
  notFound: number;
  unavailable: number;
  dropped: number;
  changes: number;
}

export const emptyRound = (): RoundReport => ({ batches: 0, claimed: 0, changed: 0, unchanged: 0, notFound: 0, unavailable: 0, dropped: 0, changes: 0 });

export function addBatch(round: RoundReport, b: BatchReport): void {
  round.batches += b.claimed ? 1 : 0;
  round.claimed += b.claimed;
  round.changed += b.changed;
  round.unchanged += b.unchanged;
  round.notFound += b.notFound;
  round.unavailable += b.unavailable;
  round.dropped += b.dropped;
  round.changes += b.changes;
}

/**
 * Refreshes everything due before `dueBefore` (watched records: `watchedDueBefore`), persons and
 * companies in turn, until nothing is left or the source fails (then it stops: the records stay due).
 */
export async function refreshRound(
  deps: RefreshDeps,
  opts: BatchOptions & { kinds?: QueueKind[]; shouldStop?: () => boolean },
): Promise<RoundReport> {
  const round = emptyRound();
  const kinds = new Set<QueueKind>(opts.kinds ?? ['person', 'company']);
  while (kinds.size && !opts.shouldStop?.()) {
    for (const kind of [...kinds]) {
      const batch = await refreshBatch(deps, kind, opts);
      addBatch(round, batch);
      if (batch.unavailable) return round;
      if (!batch.claimed) kinds.delete(kind);
    }
  }
  return round;
}
