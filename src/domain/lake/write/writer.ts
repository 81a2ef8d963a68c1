/**
 * The one write path into the lake, shared by import, seed, the realtime write-back and the
 * background refresh. In one transaction it: dedupes the batch, refuses records of withdrawn data
 * subjects, (for a refresh) keeps only records whose queue lease is still held, diffs each record
 * against the copy it replaces with the one diff (write/diff.ts), moves only `fetched_at`
 * of unchanged records, upserts the changed and new ones, and records the detected changes in the
 * change log. A failure anywhere leaves nothing written.
 */
import type { Knex } from 'knex';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../../model/records';
import { lockStoredCompanies, sequentialCompanyWrites, touchCompanies, upsertCompanies, type StoredCompanyRow } from '../../../db/repositories/companyRecords';
import {
  applyPersonSqlRules,
  copyNewPersons,
  lockStoredPersons,
  storedPersonKeys,
  touchPersons,
  upsertPersons,
  type StoredRow,
} from '../../../db/repositories/personRecords';
import { hasIdentifierTable } from '../../../db/repositories/lakeIdentifiers';
import { classifyDatabaseError, isRefusedValue, refusedValueReason } from '../../../db/errors';
import { mayHoldUnstorableEscape, unstorableReason, unstorableText } from '../../text';
import { personRows, type PersonRows } from './rows';
import { retryOnDeadlock } from '../../../db/repositories/locks';
import { lockLeased } from '../../../db/repositories/refreshQueue';
import { anySuppressions, insertSuppressions, suppressedDigests } from '../../../db/repositories/suppressions';
import { recordChanges, type ChangeOrigin } from './changes';
import { diffRecords, isSameRecord, type ChangeEntry } from './diff';
import { reverification, type Reverification } from './splice';
import type { SeenKeys } from './seenKeys';
import type { TouchRow } from '../../../db/repositories/lakeTables';
import { storedCompanyId } from '../../../model/identifiers';
import { normalizeIdentifier } from '../identifiers';
import { companyDigests, personDigests } from '../suppression';

/** The username column's value: the one identifier normalization (identifiers.ts), never SQL lower(). */
export const storedUsername = (record: { username: string }) => normalizeIdentifier(record.username.trim());

export interface WriteOutcome {
  /** Records inserted, replaced or re-verified. */
  written: number;
  /** Of `written`, records whose content was unchanged (only `fetched_at` moved). */
  unchanged: number;
  /** Records refused because one of their identifiers was withdrawn (privacy request). */
  withdrawn: number;
  /** Records superseded by a later record with the same identifier in the same batch. */
  duplicates: number;
  /** Refresh only: records dropped because the worker's lease on them had been taken over. */
  stale: number;
  /**
   * Records the database cannot store, not written, each with a short reason: text it cannot hold
   * (domain/text.ts, found before any SQL), or, through writeIsolating, a value a statement refused.
   */
  unstorable: { id: string; reason: string }[];
  /** The change-log entries recorded. */
  changes: ChangeEntry[];
  /** The stored text of each record written, by id (exactly what lookups now return). */
  stored: Map<string, string>;
}

export interface WriteOptions {
  /** What produced the records; recorded with their changes. Default: import. */
  origin?: ChangeOrigin;
  /** A refresh's lease token: only records whose queue row still carries it are written. */
  leaseToken?: string;
}

type LakeRecord<K extends LakeKind> = K extends 'person' ? PersonRecord : CompanyRecord;
type AnyRecord = PersonRecord | CompanyRecord;

/** Identity keys that must be unique within one statement; the last record wins, as a later line would. */
function identityKeys(kind: LakeKind, record: AnyRecord): string[] {
  const keys = [`id:${record.id.toLowerCase()}`, `username:${storedUsername(record)}`];
  if (kind === 'company') keys.push(`company_id:${BigInt((record as CompanyRecord).company_id)}`);
  return keys;
}

function lastWins<R extends AnyRecord>(kind: LakeKind, records: readonly R[]): R[] {
  const owner = new Map<string, number>();
  records.forEach((r, i) => identityKeys(kind, r).forEach((k) => owner.set(k, i)));
  return records.filter((r, i) => identityKeys(kind, r).every((k) => owner.get(k) === i));
}

type Position = PersonRecord['positions'][number];

/** The contract serves work history newest first: current roles, then by start date, latest first. */
function newestFirst(a: Position, b: Position): number {
  return Number(b.isCurrent) - Number(a.isCurrent) || b.startYear - a.startYear || b.startMonth - a.startMonth;
}

function normalize(kind: LakeKind, record: AnyRecord): AnyRecord {
  if (kind !== 'person') return record;
  const person = record as PersonRecord;
  const sorted = [...person.positions].sort(newestFirst);
  return sorted.every((p, i) => p === person.positions[i]) ? person : { ...person, positions: sorted };
}

/** The stored copy a record replaces: the one with its id, else the one with its username (or company_id). */
function storedCopyFinder(kind: LakeKind, stored: readonly (StoredRow | StoredCompanyRow)[]) {
  const byId = new Map(stored.map((s) => [s.id.toLowerCase(), s]));
  const byUsername = new Map(stored.map((s) => [s.username, s]));
  const byCompanyId = new Map(
    kind === 'company' ? (stored as StoredCompanyRow[]).map((s) => [s.company_id, s] as const) : [],
  );
  return (r: AnyRecord) =>
    byId.get(r.id.toLowerCase()) ??
    byUsername.get(storedUsername(r)) ??
    (kind === 'company' ? byCompanyId.get(storedCompanyId((r as CompanyRecord).company_id) ?? '') : undefined);
}

export async function writeRecords<K extends LakeKind>(
  db: Knex | Knex.Transaction,
  kind: K,
  records: readonly LakeRecord<K>[],
  options: WriteOptions = {},
): Promise<WriteOutcome> {
  const origin = options.origin ?? 'import';
  // An initial load's thin records are parsed again here (fullRecord: the rare repeat or fallback).
  records = records.map(fullRecord);
  // The text each record is stored as: the repositories store JSON.stringify of the record as is.
  const storedTexts = new Map<string, string>();
  // A record holding text the database cannot store is set aside before any SQL, so it fails
  // nothing but itself (JSON.stringify escapes such characters, so only a text with an escape is
  // walked: text.ts).
  const unstorable: WriteOutcome['unstorable'] = [];
  const unique = lastWins(kind, records as readonly AnyRecord[])
    .map((r) => normalize(kind, r))
    .filter((record) => {
      const text = JSON.stringify(record);
      const found = mayHoldUnstorableEscape(text) ? unstorableText(record) : undefined;
      if (found) unstorable.push({ id: record.id, reason: unstorableReason(found) });
      else storedTexts.set(record.id.toLowerCase(), text);
      return !found;
    });
  const digestsOf = (r: AnyRecord) => (kind === 'person' ? personDigests(r as PersonRecord) : companyDigests(r as CompanyRecord));

  const write = async (trx: Knex.Transaction): Promise<WriteOutcome> => {
    if (kind === 'company') await sequentialCompanyWrites(trx);
    // Locks, always in this order (lake rows, then queue rows, each by id), so no two writers deadlock.
    // The lake rows' identities are locked and, in the same round trip, the stored copies and the
    // tombstones of the batch's identifiers read under those locks.
    const ids = unique.map((r) => r.id.toLowerCase());
    const usernames = unique.map(storedUsername);
    const digests = unique.flatMap(digestsOf);
    const { rows: stored, withdrawn: blocked } =
      kind === 'person'
        ? await lockStoredPersons(trx, ids, usernames, digests)
        : await lockStoredCompanies(
            trx,
            ids,
            usernames,
            (unique as CompanyRecord[]).map((r) => storedCompanyId(r.company_id)).filter((v): v is string => v !== undefined),
            digests,
          );
    const refused = blocked.size ? unique.filter((r) => digestsOf(r).some((d) => blocked.has(d))) : [];
    let allowed = refused.length ? unique.filter((r) => !refused.includes(r)) : unique;
    // A record refused for one withdrawn identifier is withdrawn by all of its identifiers from now on.
    if (refused.length) await insertSuppressions(trx, kind, refused.flatMap(digestsOf));
    let stale = 0;
    if (options.leaseToken) {
      const held = await lockLeased(trx, kind, options.leaseToken, allowed.map((r) => r.id.toLowerCase()));
      const kept = allowed.filter((r) => held.has(r.id.toLowerCase()));
      stale = allowed.length - kept.length;
      allowed = kept;
    }
    const storedCopyOf = storedCopyFinder(kind, stored);

    // Unchanged records: only fetched_at moves, usually spliced into the stored text (splice.ts).
    const touched: TouchRow[] = [];
    const replaced: AnyRecord[] = [];
    const changes: ChangeEntry[] = [];
    for (const record of allowed) {
      const text = storedTexts.get(record.id.toLowerCase())!;
      const old = storedCopyOf(record);
      if (!old) {
        replaced.push(record);
        continue;
      }
      let parsed: AnyRecord | undefined;
      const parseOld = () => (parsed ??= JSON.parse(old.record) as AnyRecord);
      if (sameAsStored(old, record, text, parseOld)) {
        touched.push({ id: record.id, fetchedAt: record.fetched_at, ...reverification(old.record, text, record.fetched_at) });
        continue;
      }
      replaced.push(record);
      changes.push(...diffRecords(kind, parseOld(), record));
    }
    const replacedTexts = replaced.map((r) => storedTexts.get(r.id.toLowerCase())!);
    if (kind === 'person') {
      await touchPersons(trx, touched);
      await upsertPersons(trx, replaced as PersonRecord[], replaced.map(storedUsername), replacedTexts);
    } else {
      await touchCompanies(trx, touched);
      await upsertCompanies(trx, replaced as CompanyRecord[], replaced.map(storedUsername), replacedTexts);
    }
    await recordChanges(trx, changes, origin);
    return {
      written: allowed.length,
      unchanged: touched.length,
      withdrawn: refused.length,
      duplicates: records.length - unique.length - unstorable.length,
      stale,
      unstorable,
      changes,
      stored: written(storedTexts, allowed),
    };
  };
  // A transaction of its own is run again if it was a deadlock's victim (locks.ts retryOnDeadlock).
  return db.isTransaction ? write(db as Knex.Transaction) : retryOnDeadlock(() => db.transaction(write));
}

/** The texts of the records written (not those refused or dropped). */
function written(texts: Map<string, string>, allowed: readonly AnyRecord[]): Map<string, string> {
  if (texts.size === allowed.length) return texts;
  return new Map(allowed.map((r) => [r.id.toLowerCase(), texts.get(r.id.toLowerCase())!]));
}

/**
 * writeRecords, with every record the database refuses set aside instead of failing the others: a
 * batch refused for a value (a data exception, a constraint: db/errors.ts isRefusedValue) is
 * written again in halves, each in a transaction of its own, until each refused record is alone,
 * and reported in `unstorable` with a short reason (never the statement). For callers whose batch
 * must not stop on one record (the refresh, issue 32 row 7); outside a transaction.
 */
export async function writeIsolating<K extends LakeKind>(
  db: Knex,
  kind: K,
  records: readonly LakeRecord<K>[],
  options: WriteOptions = {},
): Promise<WriteOutcome> {
  if (!records.length) return emptyOutcome();
  try {
    return await writeRecords(db, kind, records, options);
  } catch (err) {
    if (!isRefusedValue(err)) throw err;
    if (records.length === 1) return { ...emptyOutcome(), unstorable: [{ id: records[0]!.id, reason: refusedValueReason(err) }] };
    const half = Math.ceil(records.length / 2);
    const first = await writeIsolating(db, kind, records.slice(0, half), options);
    return addOutcomes(first, await writeIsolating(db, kind, records.slice(half), options));
  }
}

const emptyOutcome = (): WriteOutcome => ({ written: 0, unchanged: 0, withdrawn: 0, duplicates: 0, stale: 0, unstorable: [], changes: [], stored: new Map() });

function addOutcomes(a: WriteOutcome, b: WriteOutcome): WriteOutcome {
  return {
    written: a.written + b.written,
    unchanged: a.unchanged + b.unchanged,
    withdrawn: a.withdrawn + b.withdrawn,
    duplicates: a.duplicates + b.duplicates,
    stale: a.stale + b.stale,
    unstorable: [...a.unstorable, ...b.unstorable],
    changes: [...a.changes, ...b.changes],
    stored: new Map([...a.stored, ...b.stored]),
  };
}

/**
 * The stored text of `record` and how its lake row moves to it (splice.ts), if it says the same as
 * the stored copy `stored` (read earlier, without a lock) apart from `fetched_at`, else undefined:
 * the one test of "unchanged" writeRecords makes (normalized, stringified, compared by
 * isSameRecord), for a caller that writes such a copy by a shorter path and falls back to
 * writeRecords when it cannot (realtime.ts).
 */
export function unchangedCopy<K extends LakeKind>(
  kind: K,
  stored: { id: string; record: string },
  record: LakeRecord<K>,
): { text: string; touch: Reverification } | undefined {
  const next = normalize(kind, record as AnyRecord);
  const text = JSON.stringify(next);
  if (!sameAsStored(stored, next, text, () => JSON.parse(stored.record) as AnyRecord)) return undefined;
  return { text, touch: reverification(stored.record, text, next.fetched_at) };
}

/** "Unchanged": the same id as the stored copy, and the same content apart from `fetched_at`. */
function sameAsStored(stored: { id: string; record: string }, next: AnyRecord, nextText: string, parseStored: () => AnyRecord): boolean {
  return stored.id.toLowerCase() === next.id.toLowerCase() && isSameRecord(stored.record, nextText, () => ({ old: parseStored(), next }));
}

/**
 * The write of an initial load (importer.ts, `enrich import --initial-load`), in the caller's
 * transaction: the same outcome as writeRecords, by the shortest path when it can. The batch is
 * deduped first (a later line wins, as there). Its persons none of whose identities (id, username)
 * is stored yet (the usual case in a lake being loaded) go as typed rows (rows.ts) by COPY straight
 * into the final tables, in a savepoint; those already stored (a person repeated in the file in an
 * earlier chunk) go through writeRecords, which diffs them against the stored copy, moves only
 * `fetched_at` of an identical one and logs the change of a changed one, as any import does. So a
 * repeat costs about what one record costs, not its batch. Which records are stored is asked of the
 * database for the records `seen` may hold (SeenKeys: the keys this load has written), or for
 * every record when there is no such filter (a resumed load). When the COPY still meets a stored
 * key (a record written meanwhile by someone else), a value is refused by a column, a record cannot
 * be derived, or the layout is the distributed one, the whole batch is written by writeRecords
 * instead, which isolates a bad record as any import does. Withdrawn subjects are refused first.
 * Companies go through writeRecords (their search words are a tsvector PostgreSQL builds).
 * Everything it writes is in a savepoint of its own, and what it reads outside one cannot be
 * refused for its data (ids are checked as UUIDs first): when the database refuses the batch for a
 * value, the error comes out with `trx` still usable and nothing of the batch written.
 */
export async function loadRecords<K extends LakeKind>(
  trx: Knex.Transaction,
  kind: K,
  records: readonly LakeRecord<K>[],
  options: WriteOptions = {},
  prepared?: ReadonlyMap<LakeRecord<K>, PreparedRecord>,
  seen?: SeenKeys,
): Promise<WriteOutcome> {
  if (kind !== 'person' || !records.length || (await hasIdentifierTable(trx))) return writeInSavepoint(trx, kind, records, options);
  const survivors = lastWins(kind, records as readonly AnyRecord[]);
  const outcome = await loadPersons(trx, records as readonly PersonRecord[], survivors as PersonRecord[], options, prepared as never, seen);
  // Once written, the batch's keys join the load's filter, whichever way they went (a key added
  // for a record not written only costs a lookup later; a key missing would cost a fallback).
  if (seen) {
    for (const r of survivors) {
      seen.add(idKey(r));
      seen.add(usernameKey(r));
    }
  }
  return outcome;
}

/** loadRecords of persons, `survivors` the batch deduped (lastWins). */
async function loadPersons(
  trx: Knex.Transaction,
  records: readonly PersonRecord[],
  survivors: readonly PersonRecord[],
  options: WriteOptions,
  prepared: ReadonlyMap<PersonRecord, PreparedRecord> | undefined,
  seen: SeenKeys | undefined,
): Promise<WriteOutcome> {
  const stored = new Map<string, string>();
  const unique: PersonRecord[] = [];
  const rowsOf = new Map<PersonRecord, PersonRows>();
  /** The record as read of each normalized one: writeRecords takes records as read. */
  const originalOf = new Map<PersonRecord, PersonRecord>();
  for (const original of survivors) {
    const ready = prepared?.get(original) ?? prepareRecord('person', original);
    if (!ready.rows) return writeInSavepoint(trx, 'person', records, options);
    const record = ready.record as PersonRecord;
    unique.push(record);
    originalOf.set(record, original);
    stored.set(record.id.toLowerCase(), storedText(ready));
    rowsOf.set(record, ready.rows);
  }
  // Persons already stored, by either key: asked of the database only for those the filter may
  // hold (all of them without a filter). An id PostgreSQL would refuse as a UUID sends the batch to
  // writeRecords, which isolates that record as before.
  const asked = seen ? unique.filter((r) => seen.mayHave(idKey(r)) || seen.mayHave(usernameKey(r))) : unique;
  if (asked.some((r) => !UUID.test(r.id))) return writeInSavepoint(trx, 'person', records, options);
  const found = asked.length
    ? await storedPersonKeys(trx, asked.map((r) => r.id.toLowerCase()), asked.map(storedUsername))
    : { ids: new Set<string>(), usernames: new Set<string>() };
  const isStored = (r: PersonRecord) => found.ids.has(r.id.toLowerCase()) || found.usernames.has(storedUsername(r));
  const repeats = found.ids.size || found.usernames.size ? unique.filter(isStored) : [];
  const fresh = repeats.length ? unique.filter((r) => !isStored(r)) : unique;
  // Withdrawn subjects among the new ones, read before anything of the batch is written (as
  // writeRecords reads them for its whole batch). Digests (a SHA-256 per identifier) only when
  // some record has been withdrawn at all.
  const digestsOf = (r: PersonRecord) => personDigests(fullRecord(r));
  const blocked = fresh.length && (await anySuppressions(trx)) ? await suppressedDigests(trx, fresh.flatMap(digestsOf)) : new Set<string>();
  const refused = blocked.size ? fresh.filter((r) => digestsOf(r).some((d) => blocked.has(d))) : [];
  const allowed = refused.length ? fresh.filter((r) => !refused.includes(r)) : fresh;
  const persons: (string | Buffer)[] = [];
  const positions: string[] = [];
  const educations: string[] = [];
  const refresh: string[] = [];
  const sqlRules: string[] = [];
  for (const record of allowed) {
    const rows = rowsOf.get(record)!;
    persons.push(rows.person, rows.record, '\n');
    if (rows.positions) positions.push(rows.positions);
    if (rows.educations) educations.push(rows.educations);
    refresh.push(rows.refresh);
    if (rows.sqlRules) sqlRules.push(record.id);
  }
  for (const r of [...refused, ...repeats]) stored.delete(r.id.toLowerCase());
  let again: WriteOutcome | undefined;
  try {
    // One savepoint: when the COPY meets a stored key after all, or a value is refused, none of
    // the batch stays written and writeRecords writes all of it, exactly as before.
    await trx.transaction(async (savepoint) => {
      // The repeats first: they share no key with the new ones (deduped above), so the order of
      // the two groups changes no row; writeRecords diffs them and logs their changes in file order.
      if (repeats.length) again = await writeRecords(savepoint, 'person', repeats.map((r) => originalOf.get(r)!), options);
      if (refused.length) await insertSuppressions(savepoint, 'person', refused.flatMap(digestsOf));
      await copyNewPersons(savepoint, { persons, positions, educations, refresh });
      await applyPersonSqlRules(savepoint, sqlRules);
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (classifyDatabaseError(err) !== 'invalid_input' && !(typeof code === 'string' && code.startsWith('23'))) throw err;
    return writeInSavepoint(trx, 'person', records, options);
  }
  const copied: WriteOutcome = {
    written: allowed.length,
    unchanged: 0,
    withdrawn: refused.length,
    duplicates: records.length - unique.length,
    stale: 0,
    unstorable: [],
    changes: [],
    stored,
  };
  return again ? addOutcomes(copied, again) : copied;
}

/**
 * Several chunks of an initial load in one pass (importer.ts commits a few chunks at once): the
 * same lake, change log and outcome, chunk by chunk, as loadRecords called for each chunk in turn,
 * with one COPY per table and one lookup of stored keys for all of them. The chunk stays the unit
 * of the log's rule: each chunk is deduped alone (a later line wins within it, as in the writer's
 * batch), and a person of a chunk whose id or username is stored, or held by a person of an earlier
 * chunk of the group, goes through writeRecords with the rest of that chunk's repeats, diffed
 * against the copy the earlier chunk left, its change logged as loadRecords would log it. The new
 * persons of every chunk go first by COPY, then the repeats chunk by chunk in file order: a new
 * person shares no key with any person of an earlier chunk, nor with anything stored, so writing it
 * earlier changes no row a repeat is diffed against. Undefined (nothing written) where it cannot
 * promise loadRecords' result, and the caller calls loadRecords per chunk instead: companies, the
 * distributed layout, a record SQL values refuse, an id that is no UUID, any withdrawn subject in
 * the lake (the order of refusals and tombstones is loadRecords' alone), and, with the savepoint
 * rolled back, a COPY that meets a stored key or a refused value.
 */
export async function loadChunks<K extends LakeKind>(
  trx: Knex.Transaction,
  kind: K,
  chunks: readonly (readonly LakeRecord<K>[])[],
  options: WriteOptions = {},
  prepared?: ReadonlyMap<LakeRecord<K>, PreparedRecord>,
  seen?: SeenKeys,
): Promise<WriteOutcome[] | undefined> {
  if (kind !== 'person' || (await hasIdentifierTable(trx))) return undefined;
  interface Part {
    records: readonly PersonRecord[];
    unique: PersonRecord[];
    fresh: PersonRecord[];
    repeats: PersonRecord[];
    stored: Map<string, string>;
  }
  const parts: Part[] = [];
  const rowsOf = new Map<PersonRecord, PersonRows>();
  const originalOf = new Map<PersonRecord, PersonRecord>();
  const asked: PersonRecord[] = [];
  for (const records of chunks as readonly (readonly PersonRecord[])[]) {
    const part: Part = { records, unique: [], fresh: [], repeats: [], stored: new Map() };
    for (const original of lastWins('person', records) as PersonRecord[]) {
      const ready = (prepared as ReadonlyMap<PersonRecord, PreparedRecord> | undefined)?.get(original) ?? prepareRecord('person', original);
      if (!ready.rows || !UUID.test(original.id)) return undefined;
      const record = ready.record as PersonRecord;
      part.unique.push(record);
      originalOf.set(record, original);
      part.stored.set(record.id.toLowerCase(), storedText(ready));
      rowsOf.set(record, ready.rows);
      if (!seen || seen.mayHave(idKey(record)) || seen.mayHave(usernameKey(record))) asked.push(record);
    }
    parts.push(part);
  }
  if (await anySuppressions(trx)) return undefined;
  const found = asked.length
    ? await storedPersonKeys(trx, asked.map((r) => r.id.toLowerCase()), asked.map(storedUsername))
    : { ids: new Set<string>(), usernames: new Set<string>() };
  // Keys of the persons of the chunks before: stored by the time loadRecords would reach this chunk.
  const ids = new Set<string>();
  const usernames = new Set<string>();
  const persons: (string | Buffer)[] = [];
  const positions: string[] = [];
  const educations: string[] = [];
  const refresh: string[] = [];
  const sqlRules: string[] = [];
  for (const part of parts) {
    for (const record of part.unique) {
      const id = record.id.toLowerCase();
      const username = storedUsername(record);
      if (found.ids.has(id) || found.usernames.has(username) || ids.has(id) || usernames.has(username)) {
        part.repeats.push(record);
        part.stored.delete(id);
        continue;
      }
      part.fresh.push(record);
      const rows = rowsOf.get(record)!;
      persons.push(rows.person, rows.record, '\n');
      if (rows.positions) positions.push(rows.positions);
      if (rows.educations) educations.push(rows.educations);
      refresh.push(rows.refresh);
      if (rows.sqlRules) sqlRules.push(record.id);
    }
    for (const record of part.unique) {
      ids.add(record.id.toLowerCase());
      usernames.add(storedUsername(record));
    }
  }
  const again: (WriteOutcome | undefined)[] = [];
  try {
    await trx.transaction(async (savepoint) => {
      await copyNewPersons(savepoint, { persons, positions, educations, refresh });
      await applyPersonSqlRules(savepoint, sqlRules);
      for (const part of parts) {
        again.push(part.repeats.length ? await writeRecords(savepoint, 'person', part.repeats.map((r) => originalOf.get(r)!), options) : undefined);
      }
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (classifyDatabaseError(err) !== 'invalid_input' && !(typeof code === 'string' && code.startsWith('23'))) throw err;
    return undefined;
  }
  if (seen) {
    for (const part of parts) {
      for (const r of part.unique) {
        seen.add(idKey(r));
        seen.add(usernameKey(r));
      }
    }
  }
  return parts.map((part, i) => {
    const copied: WriteOutcome = {
      written: part.fresh.length,
      unchanged: 0,
      withdrawn: 0,
      duplicates: part.records.length - part.unique.length,
      stale: 0,
      unstorable: [],
      changes: [],
      stored: part.stored,
    };
    return again[i] ? addOutcomes(copied, again[i]!) : copied;
  });
}

/**
 * writeRecords in a savepoint of its own: loadRecords writes only in savepoints, so a batch the
 * database refuses for its data leaves the caller's transaction usable (the importer then writes
 * the batch again in halves) without a savepoint of the caller's around every batch.
 */
function writeInSavepoint<K extends LakeKind>(trx: Knex.Transaction, kind: K, records: readonly LakeRecord<K>[], options: WriteOptions): Promise<WriteOutcome> {
  return trx.transaction((savepoint) => writeRecords(savepoint, kind, records, options));
}

/** Where a thin record keeps the line its whole record is parsed from again (JSON.stringify ignores it). */
const LINE = Symbol('line');

/**
 * A record reduced to its identity (id, username) for an initial load to hold between reading and
 * writing (importer.ts): its typed rows and stored text are made, and what is written by COPY
 * needs nothing else, so the parsed tree dies young instead of surviving into the old generation
 * with its chunk (two commits of 5,000 records in flight: the GC was a quarter of the load's Node
 * CPU, issue 35). The few records that take another path (a repeat, a fallback, a withdrawn
 * subject) are parsed again from `line` (fullRecord), which gives the same record. Only for a
 * record that JSON.parse(line) gave, unchanged since.
 */
export function thinRecord<R extends AnyRecord>(record: R, line: string | Buffer): R {
  return { id: record.id, username: record.username, [LINE]: line } as unknown as R;
}

/** The whole record of a thin one (thinRecord), parsed again from its line; any other record as it is. */
export function fullRecord<R extends AnyRecord>(record: R): R {
  const line = (record as { [LINE]?: string | Buffer })[LINE];
  return line === undefined ? record : (JSON.parse(typeof line === 'string' ? line : line.toString('utf8')) as R);
}

/** A person's keys in a load's SeenKeys. */
const idKey = (r: AnyRecord) => `i:${r.id.toLowerCase()}`;
const usernameKey = (r: AnyRecord) => `u:${storedUsername(r)}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A record as an initial load writes it: normalized, its stored text, its typed rows (persons). */
export interface PreparedRecord {
  record: AnyRecord;
  /**
   * The stored text, or its UTF-8 bytes when it is the line as read (kept off the JS heap until
   * the commit: the string dies young, issue 35).
   */
  text: string | Buffer;
  /** Undefined for a company, or a person whose values SQL would refuse (rows.ts). */
  rows: PersonRows | undefined;
}

/**
 * The work of loadRecords that depends on one record alone, done ahead (importer.ts does it while
 * the previous chunk is being written, so Node's share overlaps the database's). `line`: the text
 * `record` was parsed from (JSON.parse, nothing changed since), if the caller has it.
 */
export function prepareRecord(kind: LakeKind, record: AnyRecord, line?: string, bytes?: Buffer): PreparedRecord {
  const normalized = normalize(kind, record);
  const text = JSON.stringify(normalized);
  // The line the record was parsed from is its stored text when it is the text JSON.stringify
  // writes, as the exports people load usually are. Compared, not checked by a scanner of our
  // own: a one-pass canonical-JSON check of a 5 KB person costs as much as the serialisation
  // (26-33 against 16-27 µs, measured), and the comparison is exact.
  const asRead = line !== undefined && text === line;
  if (kind !== 'person') return { record: normalized, text, rows: undefined };
  const person = normalized as PersonRecord;
  const rows = personRows(person, storedUsername(person), text);
  // The line's bytes as read (UTF-8 of `text`) are the COPY field itself when no backslash needs
  // escaping: the text is then held until the commit as those bytes, outside the JS heap.
  if (asRead && bytes && rows && bytes.indexOf(0x5c) === -1) {
    rows.record = bytes;
    return { record: normalized, text: bytes, rows };
  }
  return { record: normalized, text, rows };
}

/** A prepared record's stored text as a string. */
const storedText = (ready: PreparedRecord): string => (typeof ready.text === 'string' ? ready.text : ready.text.toString('utf8'));
