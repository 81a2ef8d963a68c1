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
 * refreshed once per round however many workers share it. A batch is two halves (claimAndAsk,
 * writeAsked): the next batch's claim and source call run while the current batch is written, at
 * most one batch ahead, so the source's time and the database's overlap instead of adding up.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../model/records';
import { claimDue, markChecked, markRefused, releaseLeases, type ClaimedRow } from '../../db/repositories/refreshQueue';
import { writeIsolating } from '../lake/write/writer';
import type { LiveBatch, LiveSource, UnavailableCause } from '../live/source';
import type { ChangeEntry } from '../lake/write/diff';

export interface RefreshObserver {
  records(kind: LakeKind, outcome: string, count: number): void;
  changes(entries: readonly ChangeEntry[]): void;
}

export interface BatchOptions {
  batchSize: number;
  leaseSeconds: number;
  dueBefore: Date;
  watchedDueBefore: Date;
}

export interface BatchReport {
  kind: LakeKind;
  claimed: number;
  changed: number;
  unchanged: number;
  notFound: number;
  unavailable: number;
  /** Written by nobody: the lease was taken over (this worker was too slow) or the subject withdrawn. */
  dropped: number;
  /**
   * Records whose copy the database cannot store (issue 32, row 7): set aside, each with a short
   * reason on its queue row, and asked again on their own schedule; the rest of the batch is written.
   */
  refused: number;
  refusals?: { id: string; reason: string }[];
  changes: number;
  /** Why the source could not answer, when it could not: the cause (as the metric's label) and the reason. */
  cause?: UnavailableCause;
  reason?: string;
}

export interface RefreshDeps {
  db: Knex;
  source: LiveSource;
  observer?: RefreshObserver;
  now?: () => Date;
}

/**
 * The first half of a batch: its claim and the source's answer, not yet written. A worker holds at
 * most one of these ahead of the batch it is writing (refreshRound, RefreshWorker), so the next
 * source call overlaps the current write; each is bounded by the source's batch deadline, and its
 * write is fenced by its lease token, so a batch held too long is dropped, never written twice.
 */
export interface AskedBatch {
  kind: LakeKind;
  token: string;
  claimed: ClaimedRow[];
  /** The source's answer; undefined when nothing was claimed. */
  answer?: LiveBatch<PersonRecord | CompanyRecord>;
  /** When the answer came (ISO): the records' fetched_at, however long the batch then waits for its write. */
  answeredAt?: string;
}

/** Claims due records and asks the source for all of them in one call. */
export async function claimAndAsk(deps: RefreshDeps, kind: LakeKind, opts: BatchOptions): Promise<AskedBatch> {
  const token = randomUUID();
  const claimed = await claimDue(deps.db, kind, { token, limit: opts.batchSize, ...opts });
  if (!claimed.length) return { kind, token, claimed };
  try {
    const usernames = claimed.map((c) => c.username);
    const answer = kind === 'person' ? await deps.source.persons(usernames) : await deps.source.companies(usernames);
    return { kind, token, claimed, answer, answeredAt: (deps.now ?? (() => new Date()))().toISOString() };
  } catch (err) {
    await giveBack(deps, { kind, token, claimed });
    throw err;
  }
}

/** An asked batch that will not be written (the worker stops, or failed meanwhile): its records are due again. */
export async function giveBack(deps: RefreshDeps, asked: AskedBatch | undefined): Promise<void> {
  if (!asked?.claimed.length) return;
  await releaseLeases(deps.db, asked.kind, asked.token, asked.claimed.map((c) => c.id)).catch(() => undefined);
}

/** The second half of a batch: the answers written through the lake writer, fenced by the lease token. */
export async function writeAsked(deps: RefreshDeps, asked: AskedBatch): Promise<BatchReport> {
  const { db } = deps;
  const { kind, token, claimed, answer } = asked;
  const report: BatchReport = { kind, claimed: claimed.length, changed: 0, unchanged: 0, notFound: 0, unavailable: 0, dropped: 0, refused: 0, changes: 0 };
  if (!claimed.length || !answer) return report;
  let settled = false;
  try {
    if (answer.status === 'unavailable') {
      report.unavailable = claimed.length;
      report.cause = answer.cause;
      report.reason = answer.reason;
      deps.observer?.records(kind, 'unavailable', claimed.length);
      return report;
    }
    const verifiedAt = asked.answeredAt ?? (deps.now ?? (() => new Date()))().toISOString();
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
    // One record the database cannot store fails only itself (writeIsolating): the others are
    // written, and it is marked and goes to the back of the queue like a record the source does not know.
    const outcome = await writeIsolating(db, kind, records as never[], { origin: 'refresh', leaseToken: token });
    const refused = await markRefused(db, kind, token, outcome.unstorable);
    report.unchanged = outcome.unchanged;
    report.changed = outcome.written - outcome.unchanged;
    report.dropped = outcome.stale + outcome.withdrawn;
    report.refused = outcome.unstorable.length;
    if (report.refused) report.refusals = outcome.unstorable;
    report.changes = outcome.changes.length;
    // Every written, not-found or refused record's lease ended with its write: nothing is left to give back.
    settled = outcome.written + missing.length + refused === claimed.length;
    const o = deps.observer;
    if (o) {
      o.records(kind, 'changed', report.changed);
      o.records(kind, 'unchanged', report.unchanged);
      o.records(kind, 'not_found', report.notFound);
      o.records(kind, 'dropped', report.dropped);
      o.records(kind, 'refused', report.refused);
      o.changes(outcome.changes);
    }
    return report;
  } finally {
    // Whatever is still leased with this token (source failure, dropped records, an error) is due again.
    if (!settled) await giveBack(deps, asked);
  }
}

/** One batch, start to end: claim, one source call, one fenced write. */
export async function refreshBatch(deps: RefreshDeps, kind: LakeKind, opts: BatchOptions): Promise<BatchReport> {
  return writeAsked(deps, await claimAndAsk(deps, kind, opts));
}

/**
 * A promise of the batch after the current one, started now so its claim and source call run while
 * the current batch is written. It never rejects unobserved: its failure surfaces where it is awaited.
 */
export function askAhead(deps: RefreshDeps, kind: LakeKind, opts: BatchOptions | (() => Promise<BatchOptions>)): Promise<AskedBatch> {
  const ahead = (async () => claimAndAsk(deps, kind, typeof opts === 'function' ? await opts() : opts))();
  ahead.catch(() => undefined);
  return ahead;
}

export interface RoundReport {
  batches: number;
  claimed: number;
  changed: number;
  unchanged: number;
  notFound: number;
  unavailable: number;
  dropped: number;
  refused: number;
  changes: number;
}

export const emptyRound = (): RoundReport => ({ batches: 0, claimed: 0, changed: 0, unchanged: 0, notFound: 0, unavailable: 0, dropped: 0, refused: 0, changes: 0 });

export function addBatch(round: RoundReport, b: BatchReport): void {
  round.batches += b.claimed ? 1 : 0;
  round.claimed += b.claimed;
  round.changed += b.changed;
  round.unchanged += b.unchanged;
  round.notFound += b.notFound;
  round.unavailable += b.unavailable;
  round.dropped += b.dropped;
  round.refused += b.refused;
  round.changes += b.changes;
}

/**
 * Refreshes everything due before `dueBefore` (watched records: `watchedDueBefore`), persons and
 * companies in turn, until nothing is left or the source fails (then it stops: the records stay due).
 * The next batch is claimed and asked for while the current one is written (one batch ahead at most).
 */
export async function refreshRound(
  deps: RefreshDeps,
  opts: BatchOptions & { kinds?: LakeKind[]; shouldStop?: () => boolean },
): Promise<RoundReport> {
  const round = emptyRound();
  const kinds: LakeKind[] = [...new Set<LakeKind>(opts.kinds ?? ['person', 'company'])];
  let turn = 0;
  const next = (): Promise<AskedBatch> | undefined =>
    kinds.length && !opts.shouldStop?.() ? askAhead(deps, kinds[turn++ % kinds.length]!, opts) : undefined;
  let ahead = next();
  try {
    while (ahead) {
      const asked = await ahead;
      ahead = undefined;
      if (!asked.claimed.length) {
        const at = kinds.indexOf(asked.kind);
        if (at >= 0) kinds.splice(at, 1);
        ahead = next();
        continue;
      }
      const available = asked.answer?.status !== 'unavailable';
      if (available) ahead = next();
      const batch = await writeAsked(deps, asked);
      addBatch(round, batch);
      if (batch.unavailable) return round;
    }
    return round;
  } finally {
    if (ahead) await giveBack(deps, await ahead.catch(() => undefined));
  }
}
