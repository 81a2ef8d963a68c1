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
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { classifyDatabaseError } from '../../db/errors';
import { validationError } from '../errors';
import { nulPath } from '../text';
import type { LakeKind } from '../../model/records';
import { setAsideSecondaryIndexes } from '../../db/repositories/lakeIndexes';
import { storedIdentities } from '../../db/repositories/lakeIdentities';
import { loadRecords, writeRecords, type WriteOutcome } from './write/writer';
import { defaultImportLanes, lookupKeys, recordIdentifiers, splitIntoLanes } from './lanes';

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
   * Initial load into an empty lake: one transaction holding the kind's tables exclusively, their
   * secondary indexes dropped and built again after the data. Refused when the lake holds records.
   */
  initialLoad?: boolean;
  batchSize?: number;
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

type RawLine = { line: number; text: string } | { line: number; problem: string };

/**
 * Lines of a byte stream: split on \n (a \r before it dropped), decoded as strict UTF-8. A line
 * over `maxBytes` is reported as such and its bytes dropped as they arrive.
 */
async function* readLines(input: Readable, maxBytes: number): AsyncGenerator<RawLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let length = 0;
  let overflow = false;
  let line = 0;
  let first = true;
  const finish = (): RawLine => {
    line += 1;
    if (overflow) return { line, problem: `longer than the maximum of ${maxBytes} bytes (skipped unread)` };
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
    if (bytes.length && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (first && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    first = false;
    try {
      return { line, text: decoder.decode(bytes) };
    } catch {
      return { line, problem: 'not valid UTF-8' };
    }
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!overflow) {
        if (length + (end - start) > maxBytes) {
          overflow = true;
          parts = [];
          length = 0;
        } else if (end > start) {
          parts.push(chunk.subarray(start, end));
          length += end - start;
        }
      }
      if (newline === -1) break;
      yield finish();
      parts = [];
      length = 0;
      overflow = false;
      start = newline + 1;
    }
  }
  if (length > 0 || overflow) yield finish();
}

async function openInput(file: string): Promise<{ input: Readable; bytesRead: () => number; totalBytes: number }> {
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
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const gzip = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  const input = gzip ? raw.pipe(zlib.createGunzip()) : raw;
  raw.on('error', (err) => input.destroy(err));
  return { input, bytesRead: () => raw.bytesRead, totalBytes: stat.size };
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
  // Only lines that spell a NUL escape can hold one (a raw NUL byte is not valid JSON text).
  if (text.includes('u0000')) {
    const path = nulPath(value);
    if (path) return { reason: `${path} contains the NUL character (\\u0000), which the database cannot store` };
  }
  return { record: value as object };
}

interface Pending {
  line: number;
  record: object;
}

export async function importFile(db: Knex, options: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const batchSize = options.batchSize ?? 1000;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const { input, bytesRead, totalBytes } = await openInput(options.file);
  // --strict writes everything in one transaction, so an invalid line anywhere leaves nothing behind;
  // so does an initial load, whose indexes are rebuilt before it commits.
  const trx = options.strict || options.initialLoad ? await db.transaction() : undefined;
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
  const isDataError = (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    return classifyDatabaseError(err) === 'invalid_input' || (typeof code === 'string' && code.startsWith('23'));
  };
  const write = async (batch: Pending[], refuse: (invalid: InvalidLine) => void): Promise<void> => {
    if (!batch.length) return;
    try {
      // An initial load writes new records as typed rows by COPY (writer.ts loadRecords).
      const outcome = trx
        ? await trx.transaction((savepoint) =>
            (options.initialLoad ? loadRecords : writeRecords)(savepoint, options.kind, batch.map((p) => p.record) as never),
          )
        : await writeRecords(db, options.kind, batch.map((p) => p.record) as never);
      count(outcome);
    } catch (err) {
      if (!isDataError(err)) throw err;
      if (batch.length === 1) {
        refuse({ line: batch[0].line, reason: `the database cannot store this record: ${(err as Error).message}` });
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
