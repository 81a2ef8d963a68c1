/**
 * `enrich import`: NDJSON (optionally gzip) in the contract's record shapes into the lake. Lines are
 * read, decoded and validated one by one; valid records are written in batches (one statement per
 * table per batch) while the next batch is being read, each batch on several connections at once
 * when it can be split by identity without changing the result (lanes.ts).
 *
 * Hostile input is reported line by line and skipped, never fatal to the rest:
 * - a line longer than `maxLineBytes` is refused without being held in memory (its bytes are
 *   skipped up to the next newline), so a gzip bomb of one huge line costs no memory;
 * - a UTF-8 byte-order mark at the start is ignored; invalid UTF-8 makes the line invalid;
 * - a record the schema accepts but the database cannot store (a NUL character in a string, a
 *   number beyond a column's range) is found, reported with its line number and skipped: NUL is
 *   checked before writing, anything else when a batch write fails with a data exception (SQLSTATE
 *   class 22 or 23), by writing the batch again in halves until the failing records are isolated;
 * - a stream that breaks (truncated gzip, read error) ends the import with the records read so far
 *   written and the usual report, marked incomplete.
 * `--initial-load` is resumableLoad below: chunks committed with a checkpoint, `--resume` after a crash.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { isRefusedValue, refusedValueReason } from '../../db/errors';
import { validationError } from '../errors';
import { mayHoldUnstorableEscape, unstorableReason, unstorableText } from '../text';
import type { LakeKind } from '../../model/records';
import { analyzeLake, rebuildSetAside, setAsideForLoad, setAsideSecondaryIndexes } from '../../db/repositories/lakeIndexes';
import {
  advanceImportCheckpoint,
  beginChunk,
  deleteImportCheckpoint,
  findImportCheckpoint,
  insertImportCheckpoint,
} from '../../db/repositories/importCheckpoints';
import { storedIdentities } from '../../db/repositories/lakeIdentities';
import { loadChunks, loadRecords, prepareRecord, thinRecord, writeRecords, type PreparedRecord, type WriteOutcome } from './write/writer';
import { defaultImportLanes, lookupKeys, recordIdentifiers, splitIntoLanes } from './lanes';
import { SeenKeys } from './write/seenKeys';

export interface ImportProgress {
  lines: number;
  written: number;
  invalid: number;
  bytesRead: number;
  totalBytes: number;
}

export interface InvalidLine {
  line: number;
  reason: string;
}

/** Longest accepted line by default: 16 MiB (a person record is 2 to 10 KB). */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface ImportOptions {
  kind: LakeKind;
  file: string;
  /** Abort on the first invalid line, writing nothing. */
  strict?: boolean;
  /**
   * Initial load into an empty lake, as a resumable job (resumableLoad): typed rows by COPY, chunks
   * committed with a checkpoint, secondary indexes and foreign keys built after the data. Refused
   * when the lake holds records. With `strict`: one transaction holding the tables instead.
   */
  initialLoad?: boolean;
  /**
   * Continue the interrupted initial load of the same file (see resumableLoad): implies
   * initialLoad. Refused when no load of the kind was interrupted, or it read another file.
   */
  resume?: boolean;
  batchSize?: number;
  /**
   * An initial load's chunks (of `batchSize` records) per committed transaction and checkpoint
   * (resumableLoad), written with one COPY per table: default 5. The chunk, not the commit, is
   * what decides which repeats are logged, so this changes the speed, never the result.
   */
  chunksPerCommit?: number;
  /**
   * Connections a batch is written on at once (lanes.ts): its records split by identity, so that
   * lines that could refer to the same person share a lane, in file order. Default: one per core,
   * at most 4. --strict and --initial-load write in one transaction, so on one connection.
   */
  lanes?: number;
  maxLineBytes?: number;
  /** The contract's schema for the kind: undefined when valid, otherwise the reason. */
  validate: (value: unknown) => string | undefined;
  onInvalid?: (invalid: InvalidLine) => void;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportReport {
  kind: LakeKind;
  file: string;
  lines: number;
  written: number;
  /** Lines skipped: not JSON, not the record's schema, too long, not UTF-8, or not storable. */
  invalid: number;
  withdrawn: number;
  duplicates: number;
  /** False when the input broke off (truncated gzip, read error): the records before were written. */
  complete: boolean;
  /** Why the input broke off, when it did. */
  error: string | null;
  elapsed_ms: number;
  records_per_second: number;
  /** The first invalid lines (at most 100); `invalid` has the full count. */
  errors: InvalidLine[];
}

export class ImportAborted extends Error {
  constructor(readonly invalid: InvalidLine) {
    super(`line ${invalid.line}: ${invalid.reason} (--strict: nothing was written)`);
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

type RawLine = ({ line: number; text: string; bytes: Buffer } | { line: number; problem: string }) & {
  /** Bytes of the (decompressed) input up to and including this line's newline. */
  end: number;
};

/** Where reading starts: after `line`, at byte `offset` of the decompressed input (0: the start). */
interface StartAt {
  line: number;
  offset: number;
  /** Bytes the stream still holds before `offset` (a gzip stream is read from its start): dropped. */
  skip: number;
}

/**
 * Lines of a byte stream: split on \n (a \r before it dropped), decoded as strict UTF-8. A line
 * over `maxBytes` is reported as such and its bytes dropped as they arrive. Each line carries the
 * byte offset just after it, where a resumed load starts reading again.
 */
async function* readLines(input: Readable, maxBytes: number, from: StartAt = { line: 0, offset: 0, skip: 0 }): AsyncGenerator<RawLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let length = 0;
  let overflow = false;
  let line = from.line;
  let first = from.offset === 0;
  let skip = from.skip;
  let position = from.offset - from.skip; // offset of the next chunk's first byte
  let end = from.offset;
  const finish = (): RawLine => {
    line += 1;
    if (overflow) return { line, end, problem: `longer than the maximum of ${maxBytes} bytes (skipped unread)` };
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
    if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (first && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    first = false;
    try {
      return { line, end, text: decoder.decode(bytes), bytes };
    } catch {
      return { line, end, problem: 'not valid UTF-8' };
    }
  };
  for await (let chunk of input as AsyncIterable<Buffer>) {
    if (skip > 0) {
      const dropped = Math.min(skip, chunk.length);
      skip -= dropped;
      position += dropped;
      chunk = chunk.subarray(dropped);
      if (!chunk.length) continue;
    }
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const stop = newline === -1 ? chunk.length : newline;
      if (!overflow) {
        if (length + (stop - start) > maxBytes) {
          overflow = true;
          parts = [];
          length = 0;
        } else if (stop > start) {
          parts.push(chunk.subarray(start, stop));
          length += stop - start;
        }
      }
      if (newline === -1) break;
      end = position + newline + 1;
      yield finish();
      parts = [];
      length = 0;
      overflow = false;
      start = newline + 1;
    }
    position += chunk.length;
  }
  end = position;
  if (length > 0 || overflow) yield finish();
}

/** What identifies an input file for a resumed load: its size and a hash of its first 64 KiB. */
async function fileIdentity(file: string): Promise<{ size: number; head: string }> {
  const fd = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fd.read(head, 0, head.length, 0);
    const size = (await fd.stat()).size;
    return { size, head: createHash('sha256').update(head.subarray(0, bytesRead)).digest('hex') };
  } finally {
    await fd.close();
  }
}

async function openInput(
  file: string,
  offset = 0,
): Promise<{ input: Readable; bytesRead: () => number; totalBytes: number; start: { offset: number; skip: number } }> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    throw validationError(`${file}: no such file`);
  }
  if (!stat.isFile()) throw validationError(`${file}: not a file`);
  const head = Buffer.alloc(2);
  const fd = await fs.promises.open(file, 'r');
  await fd.read(head, 0, 2, 0);
  await fd.close();
  const gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  // A plain file is read from the offset on; a gzip stream from its start, the bytes before dropped.
  const from = gzip ? 0 : offset;
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20, start: from });
  const input = gzip ? raw.pipe(zlib.createGunzip()) : raw;
  raw.on('error', (err) => input.destroy(err));
  return { input, bytesRead: () => from + raw.bytesRead, totalBytes: stat.size, start: { offset, skip: gzip ? offset : 0 } };
}

/** Why a line cannot be imported, or its record. */
function checkLine(text: string, validate: ImportOptions['validate']): { record: object } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reason: `not valid JSON (${(err as Error).message})` };
  }
  const reason = validate(value);
  if (reason) return { reason };
  // Only lines that spell such an escape can hold one (text.ts).
  if (mayHoldUnstorableEscape(text)) {
    const found = unstorableText(value);
    if (found) return { reason: unstorableReason(found) };
  }
  return { record: value as object };
}

interface Pending {
  line: number;
  record: object;
  /** An initial load's work on the record alone, done while reading (writer.ts prepareRecord). */
  prepared?: PreparedRecord;
}

export async function importFile(db: Knex, options: ImportOptions): Promise<ImportReport> {
  if ((options.initialLoad || options.resume) && !options.strict) return resumableLoad(db, options);
  if (options.resume) throw validationError('--resume continues an --initial-load; it cannot be combined with --strict');
  const started = Date.now();
  const batchSize = options.batchSize ?? 1000;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const { input, bytesRead, totalBytes } = await openInput(options.file);
  // --strict writes everything in one transaction, so an invalid line anywhere leaves nothing behind;
  // so does an initial load, whose indexes are rebuilt before it commits.
  const trx = options.strict || options.initialLoad ? await db.transaction() : undefined;
  // The keys an initial load has written (it starts on an empty lake, locked for the whole load).
  const seen = options.initialLoad ? new SeenKeys() : undefined;
  let rebuildIndexes: (() => Promise<void>) | undefined;
  const report: ImportReport = {
    kind: options.kind,
    file: options.file,
    lines: 0,
    written: 0,
    invalid: 0,
    withdrawn: 0,
    duplicates: 0,
    complete: true,
    error: null,
    elapsed_ms: 0,
    records_per_second: 0,
    errors: [],
  };
  const progress = () =>
    options.onProgress?.({ lines: report.lines, written: report.written, invalid: report.invalid, bytesRead: bytesRead(), totalBytes });
  const invalidLine = (invalid: InvalidLine) => {
    if (options.strict) throw new ImportAborted(invalid);
    report.invalid += 1;
    if (report.errors.length < 100) report.errors.push(invalid);
    options.onInvalid?.(invalid);
  };
  const count = (outcome: WriteOutcome) => {
    report.written += outcome.written;
    report.withdrawn += outcome.withdrawn;
    report.duplicates += outcome.duplicates;
  };

  /**
   * Writes a batch; when the database refuses it for its data, writes it again in halves (each in
   * a transaction, or a savepoint under --strict) until the records it cannot store are isolated,
   * reported (through `refuse`) and skipped.
   */
  const write = async (batch: Pending[], refuse: (invalid: InvalidLine) => void): Promise<void> => {
    if (!batch.length) return;
    try {
      // An initial load writes new records as typed rows by COPY (writer.ts loadRecords).
      const outcome = trx
        ? options.initialLoad
          ? // loadRecords writes in savepoints of its own (a refused batch leaves trx usable).
            await loadRecords(trx, options.kind, batch.map((p) => p.record) as never, {}, undefined, seen)
          : await trx.transaction((savepoint) => writeRecords(savepoint, options.kind, batch.map((p) => p.record) as never))
        : await writeRecords(db, options.kind, batch.map((p) => p.record) as never);
      count(outcome);
      // checkLine already refused such lines; the writer's own check (text.ts) is the same rule.
      for (const u of outcome.unstorable) {
        refuse({ line: batch.find((p) => (p.record as { id: string }).id === u.id)?.line ?? batch[0].line, reason: u.reason });
      }
    } catch (err) {
      if (!isDataError(err)) throw err;
      if (batch.length === 1) {
        refuse({ line: batch[0].line, reason: `the database cannot store this record: ${refusedValueReason(err)}` });
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await write(batch.slice(0, half), refuse);
      await write(batch.slice(half), refuse);
    }
  };

  // Never more lanes than the pool has connections (a lane holds one for its whole write).
  const poolMax = (db.client as { config?: { pool?: { max?: number } } }).config?.pool?.max ?? Infinity;
  const lanes = trx ? 1 : Math.max(1, Math.min(poolMax, Math.floor(options.lanes ?? defaultImportLanes())));
  /**
   * A batch on its lanes (lanes.ts), each lane a transaction of its own on its own connection; the
   * lines a lane could not store are reported once every lane is done, in line order, as the one
   * batch written alone would report them. A lane that fails otherwise fails the import, after the
   * other lanes have finished (nothing is left running).
   */
  const writeBatch = async (batch: Pending[]): Promise<void> => {
    if (lanes === 1 || batch.length < 2) return write(batch, invalidLine);
    const records = batch.map((p) => p.record);
    let links: string[][];
    try {
      links = await storedIdentities(db, options.kind, lookupKeys(options.kind, records));
    } catch (err) {
      // A key the database cannot take: the batch on one lane, where the failing record is isolated.
      if (!isDataError(err)) throw err;
      return write(batch, invalidLine);
    }
    const groups = splitIntoLanes(batch, records.map((r) => recordIdentifiers(options.kind, r)), links, lanes);
    if (groups.length === 1) return write(batch, invalidLine);
    const refused: InvalidLine[] = [];
    const settled = await Promise.allSettled(groups.map((group) => write(group, (invalid) => refused.push(invalid))));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    refused.sort((a, b) => a.line - b.line).forEach(invalidLine);
  };

  let pending: Promise<void> = Promise.resolve();
  let batch: Pending[] = [];
  const flush = async () => {
    const records = batch;
    batch = [];
    await pending; // one batch in flight (on its lanes) while the next one is read and validated
    pending = writeBatch(records).then(progress);
    // Surface a failed write at the next await rather than as an unhandled rejection.
    pending.catch(() => undefined);
  };

  try {
    if (options.initialLoad) {
      rebuildIndexes = await setAsideSecondaryIndexes(trx!, options.kind);
      if (!rebuildIndexes) {
        throw validationError(`--initial-load: the lake already holds ${options.kind} records; import without --initial-load`);
      }
    }
    try {
      for await (const raw of readLines(input, maxLineBytes)) {
        report.lines = raw.line;
        if ('problem' in raw) {
          invalidLine({ line: raw.line, reason: raw.problem });
          continue;
        }
        if (!raw.text.trim()) continue;
        const checked = checkLine(raw.text, options.validate);
        if ('reason' in checked) {
          invalidLine({ line: raw.line, reason: checked.reason });
          continue;
        }
        batch.push({ line: raw.line, record: checked.record });
        if (batch.length >= batchSize) await flush();
      }
    } catch (err) {
      if (err instanceof ImportAborted) throw err;
      // The input broke off (truncated gzip, read error): keep what was read, say so.
      if (options.strict) throw validationError(`${options.file}: input ended early (${(err as Error).message}); --strict: nothing was written`);
      report.complete = false;
      report.error = `input ended early after line ${report.lines}: ${(err as Error).message}`;
    }
    await flush();
    await pending;
    await rebuildIndexes?.();
    await trx?.commit();
    if (rebuildIndexes) await analyzeLake(db, options.kind);
  } catch (err) {
    input.destroy();
    await pending.catch(() => undefined);
    await trx?.rollback().catch(() => undefined);
    throw err;
  }
  progress();
  report.elapsed_ms = Date.now() - started;
  report.records_per_second = Math.round(report.written / Math.max(report.elapsed_ms / 1000, 0.001));
  return report;
}

/** The part of a report a resumable load keeps with its checkpoint (the rest is this run's). */
type CommittedReport = Pick<ImportReport, 'lines' | 'written' | 'invalid' | 'withdrawn' | 'duplicates' | 'errors'>;

/**
 * A commit: the lines read since the last one, committed in one transaction with the checkpoint;
 * its records in chunks of `batchSize` (the last one possibly shorter), each deduped and logged as
 * one batch of the writer.
 */
interface Chunk {
  parts: Pending[][];
  invalid: InvalidLine[];
  endLine: number;
  endOffset: number;
}

const isDataError = isRefusedValue;

/** An initial load's chunks per commit by default (ImportOptions.chunksPerCommit). */
export const DEFAULT_CHUNKS_PER_COMMIT = 5;

/**
 * `enrich import --initial-load` (without --strict): the load of an empty lake as a resumable job.
 * - Start: in one transaction, the kind's tables are checked empty, their secondary indexes and
 *   foreign keys dropped (lakeIndexes.ts setAsideForLoad) and a checkpoint row written with their
 *   definitions and the file's identity (importCheckpoints.ts).
 * - Chunks: every `batchSize` records (and the invalid lines among them) are one transaction that
 *   writes the records (writer.ts loadRecords: typed rows by COPY) and advances the checkpoint to
 *   the byte offset and line just after the chunk's last line, with the report so far. One chunk
 *   is written while the next is read, parsed and validated.
 * - End: the indexes and keys are built again, ANALYZE, the checkpoint deleted.
 * After a crash or `kill -9` anywhere, `--resume` with the same file reads on from the checkpoint
 * (a gzip stream is decompressed from its start, the bytes before the offset dropped unparsed); the
 * chunks fall on the same lines as in an uninterrupted run, so the lake, the change log and the
 * report are the same. The API can read the tables while the load runs, without their secondary
 * indexes (slowly): the load is for a lake not yet in service.
 */
async function resumableLoad(db: Knex, options: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const { kind } = options;
  const batchSize = options.batchSize ?? 1000;
  const chunksPerCommit = Math.max(1, Math.floor(options.chunksPerCommit ?? DEFAULT_CHUNKS_PER_COMMIT));
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(options.file);
  } catch {
    throw validationError(`${options.file}: no such file`);
  }
  if (!stat.isFile()) throw validationError(`${options.file}: not a file`);
  const identity = await fileIdentity(options.file);
  const empty: CommittedReport = { lines: 0, written: 0, invalid: 0, withdrawn: 0, duplicates: 0, errors: [] };
  let checkpoint = await findImportCheckpoint<CommittedReport>(db, kind);
  if (options.resume) {
    if (!checkpoint) throw validationError(`--resume: no interrupted initial load of ${kind} records to continue`);
    if (checkpoint.file_size !== identity.size || checkpoint.file_head !== identity.head) {
      throw validationError(`--resume: ${options.file} is not the file the interrupted load was reading (${checkpoint.file}, ${checkpoint.file_size} bytes)`);
    }
  } else {
    if (checkpoint) {
      throw validationError(
        `--initial-load: the initial load of ${checkpoint.file} was interrupted after line ${checkpoint.line}; continue it with --resume`,
      );
    }
    await db.transaction(async (trx) => {
      const setAside = await setAsideForLoad(trx, kind);
      if (!setAside) throw validationError(`--initial-load: the lake already holds ${kind} records; import without --initial-load`);
      await insertImportCheckpoint(trx, { kind, file: options.file, file_size: identity.size, file_head: identity.head, report: empty, set_aside: setAside });
    });
    checkpoint = (await findImportCheckpoint<CommittedReport>(db, kind))!;
  }
  const setAside = checkpoint.set_aside;
  // The keys this load has written, so that a record not among them goes by COPY without a lookup
  // (writer.ts loadRecords). A resumed load does not know what was written before the crash: it
  // looks every record up instead.
  const seen = options.resume ? undefined : new SeenKeys();
  let committed: CommittedReport = checkpoint.report;
  let offset = checkpoint.byte_offset;
  const writtenBefore = committed.written;
  const { input, bytesRead, totalBytes, start } = await openInput(options.file, offset);
  let linesRead = checkpoint.line;
  const progress = () =>
    options.onProgress?.({ lines: linesRead, written: committed.written, invalid: committed.invalid, bytesRead: bytesRead(), totalBytes });

  /** Writes a batch; a batch the database refuses for its data is written again in halves. */
  const write = async (trx: Knex.Transaction, batch: Pending[], outcome: WriteOutcome[], refuse: (invalid: InvalidLine) => void): Promise<void> => {
    if (!batch.length) return;
    try {
      const prepared = new Map(batch.map((p) => [p.record, p.prepared!] as const));
      // loadRecords writes in savepoints of its own: a batch refused for its data leaves trx usable.
      outcome.push(await loadRecords(trx, kind, batch.map((p) => p.record) as never, {}, prepared as never, seen));
    } catch (err) {
      if (!isDataError(err)) throw err;
      if (batch.length === 1) {
        refuse({ line: batch[0].line, reason: `the database cannot store this record: ${refusedValueReason(err)}` });
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await write(trx, batch.slice(0, half), outcome, refuse);
      await write(trx, batch.slice(half), outcome, refuse);
    }
  };

  /** loadChunks of a commit's chunks; undefined when they are to be written one by one. */
  const loadTogether = async (trx: Knex.Transaction, parts: Pending[][]): Promise<WriteOutcome[] | undefined> => {
    const prepared = new Map(parts.flatMap((part) => part.map((p) => [p.record, p.prepared!] as const)));
    try {
      return await loadChunks(trx, kind, parts.map((part) => part.map((p) => p.record)) as never, {}, prepared as never, seen);
    } catch (err) {
      // A key the database refuses while looking it up (loadChunks writes in a savepoint of its own).
      if (!isDataError(err)) throw err;
      return undefined;
    }
  };

  const commit = async (chunk: Chunk): Promise<void> => {
    const next = await db.transaction(async (trx) => {
      // The checkpoint commits with the chunk, so no wait for the WAL flush; and it is locked
      // (importCheckpoints.ts beginChunk: both in one round trip).
      const held = await beginChunk(trx, kind);
      if (!held || held.byte_offset !== offset) {
        throw validationError(`--initial-load: another import is loading ${kind} records from this checkpoint; stopped`);
      }
      const outcomes: WriteOutcome[] = [];
      const refused: InvalidLine[] = [];
      const refuse = (invalid: InvalidLine) => {
        refused.push(invalid);
        options.onInvalid?.(invalid);
      };
      // All its chunks at once (writer.ts loadChunks), or, where that cannot promise the same
      // result, chunk after chunk as one chunk per commit writes them.
      const parts = chunk.parts.filter((part) => part.length);
      const together = parts.length > 1 ? await loadTogether(trx, parts) : undefined;
      if (together) {
        parts.forEach((part, i) => {
          outcomes.push(together[i]!);
          for (const u of together[i]!.unstorable) {
            refuse({ line: part.find((p) => (p.record as { id: string }).id === u.id)?.line ?? part[0]!.line, reason: u.reason });
          }
        });
      } else {
        for (const part of parts) await write(trx, part, outcomes, refuse);
      }
      const invalid = [...chunk.invalid, ...refused].sort((a, b) => a.line - b.line);
      const sum = (k: 'written' | 'withdrawn' | 'duplicates') => outcomes.reduce((n, o) => n + o[k], committed[k]);
      const report: CommittedReport = {
        lines: chunk.endLine,
        written: sum('written'),
        invalid: committed.invalid + invalid.length,
        withdrawn: sum('withdrawn'),
        duplicates: sum('duplicates'),
        errors: [...committed.errors, ...invalid].slice(0, 100),
      };
      await advanceImportCheckpoint(trx, kind, { byteOffset: chunk.endOffset, line: chunk.endLine, report });
      return report;
    });
    committed = next;
    offset = chunk.endOffset;
    progress();
  };

  let pending: Promise<void> = Promise.resolve();
  let chunk: Chunk = { parts: [[]], invalid: [], endLine: checkpoint.line, endOffset: offset };
  let flushedLine = checkpoint.line;
  const flush = async () => {
    const full = chunk;
    flushedLine = full.endLine;
    chunk = { parts: [[]], invalid: [], endLine: full.endLine, endOffset: full.endOffset };
    await pending; // one chunk in flight while the next one is read and validated
    pending = commit(full);
    pending.catch(() => undefined);
  };
  let complete = true;
  let error: string | null = null;
  try {
    try {
      let sinceYield = 0;
      for await (const raw of readLines(input, maxLineBytes, { line: checkpoint.line, ...start })) {
        // Lines already read are served from the stream's buffer without a turn of the event loop:
        // a turn every few lines lets the chunk in flight send its next statement meanwhile, so
        // the database does not wait for a whole buffer of lines to be parsed first.
        if (++sinceYield >= 16) {
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        linesRead = raw.line;
        chunk.endLine = raw.line;
        chunk.endOffset = raw.end;
        if ('problem' in raw) {
          const invalid = { line: raw.line, reason: raw.problem };
          chunk.invalid.push(invalid);
          options.onInvalid?.(invalid);
          continue;
        }
        if (!raw.text.trim()) continue;
        const checked = checkLine(raw.text, options.validate);
        if ('reason' in checked) {
          const invalid = { line: raw.line, reason: checked.reason };
          chunk.invalid.push(invalid);
          options.onInvalid?.(invalid);
          continue;
        }
        let part = chunk.parts[chunk.parts.length - 1]!;
        if (part.length >= batchSize) chunk.parts.push((part = []));
        const prepared = prepareRecord(kind, checked.record as never, raw.text, raw.bytes);
        // Held until its commit as its identity, typed rows and text only (writer.ts thinRecord).
        if (kind === 'person' && prepared.record === checked.record) prepared.record = thinRecord(prepared.record, typeof prepared.text === 'string' ? raw.text : prepared.text);
        part.push({ line: raw.line, record: prepared.record, prepared });
        if (part.length >= batchSize && chunk.parts.length >= chunksPerCommit) await flush();
      }
    } catch (err) {
      // The input broke off (truncated gzip, read error): keep what was read, say so.
      complete = false;
      error = `input ended early after line ${linesRead}: ${(err as Error).message}`;
    }
    if (chunk.endLine > flushedLine) await flush();
    await pending;
  } catch (err) {
    input.destroy();
    await pending.catch(() => undefined);
    throw err;
  }
  await rebuildSetAside(db, kind, setAside);
  await deleteImportCheckpoint(db, kind);
  progress();
  const elapsed = Date.now() - started;
  return {
    kind,
    file: options.file,
    ...committed,
    complete,
    error,
    elapsed_ms: elapsed,
    records_per_second: Math.round((committed.written - writtenBefore) / Math.max(elapsed / 1000, 0.001)),
  };
}

/**
 * The exit status of an import (documented in the README): 0 every record line was imported (or
 * refused as withdrawn or superseded in the same file), 2 some lines were skipped, 3 nothing could
 * be imported (every record line was skipped), 4 the input broke off (what was read is imported).
 * Errors before or outside the import (bad arguments, missing file, --strict abort, database down)
 * exit 1.
 */
export function importExitCode(report: ImportReport): number {
  if (!report.complete) return 4;
  if (report.invalid === 0) return 0;
  const accepted = report.written + report.withdrawn + report.duplicates;
  return accepted === 0 ? 3 : 2;
}
