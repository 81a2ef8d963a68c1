/**
 * `enrich import`: NDJSON (optionally gzip) in the contract's record shapes into the lake. Lines are
 * parsed and validated one by one; valid records are written in batches (one statement per table per
 * batch) while the next batch is being read.
 */
import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { Knex } from 'knex';
import { validationError } from '../errors';
import type { LakeKind } from './suppression';
import { writeRecords, type WriteOutcome } from './writer';

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

export interface ImportOptions {
  kind: LakeKind;
  file: string;
  /** Abort on the first invalid line, writing nothing. */
  strict?: boolean;
  batchSize?: number;
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
  invalid: number;
  withdrawn: number;
  duplicates: number;
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

async function openLines(file: string): Promise<{ lines: AsyncIterable<string>; bytesRead: () => number; totalBytes: number }> {
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
  return {
    lines: readline.createInterface({ input, crlfDelay: Infinity }),
    bytesRead: () => raw.bytesRead,
    totalBytes: stat.size,
  };
}

export async function importFile(db: Knex, options: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const batchSize = options.batchSize ?? 1000;
  // --strict writes everything in one transaction, so an invalid line anywhere leaves nothing behind.
  const trx = options.strict ? await db.transaction() : undefined;
  let opened: Awaited<ReturnType<typeof openLines>>;
  try {
    opened = await openLines(options.file);
  } catch (err) {
    await trx?.rollback().catch(() => undefined);
    throw err;
  }
  // No await may come between here and the loop: readline emits lines from the moment it exists,
  // and lines emitted before the loop starts iterating would be lost.
  const { lines, bytesRead, totalBytes } = opened;
  const report: ImportReport = {
    kind: options.kind,
    file: options.file,
    lines: 0,
    written: 0,
    invalid: 0,
    withdrawn: 0,
    duplicates: 0,
    elapsed_ms: 0,
    records_per_second: 0,
    errors: [],
  };
  const progress = () =>
    options.onProgress?.({
      lines: report.lines,
      written: report.written,
      invalid: report.invalid,
      bytesRead: bytesRead(),
      totalBytes,
    });

  const target = trx ?? db;
  let pending: Promise<void> = Promise.resolve();
  let batch: object[] = [];
  const flush = async () => {
    const records = batch;
    batch = [];
    await pending; // one batch in flight while the next one is read and validated
    pending = writeRecords(target, options.kind, records as never).then((outcome: WriteOutcome) => {
      report.written += outcome.written;
      report.withdrawn += outcome.withdrawn;
      report.duplicates += outcome.duplicates;
      progress();
    });
    // Surface a failed write at the next await rather than as an unhandled rejection.
    pending.catch(() => undefined);
  };

  try {
    for await (const text of lines) {
      report.lines += 1;
      if (!text.trim()) continue;
      let value: unknown;
      let reason: string | undefined;
      try {
        value = JSON.parse(text);
        reason = options.validate(value);
      } catch (err) {
        reason = `not valid JSON (${(err as Error).message})`;
      }
      if (reason) {
        const invalid = { line: report.lines, reason };
        if (options.strict) throw new ImportAborted(invalid);
        report.invalid += 1;
        if (report.errors.length < 100) report.errors.push(invalid);
        options.onInvalid?.(invalid);
        continue;
      }
      batch.push(value as object);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    await pending;
    await trx?.commit();
  } catch (err) {
    await pending.catch(() => undefined);
    await trx?.rollback().catch(() => undefined);
    throw err;
  }
  progress();
  report.elapsed_ms = Date.now() - started;
  report.records_per_second = Math.round(report.written / Math.max(report.elapsed_ms / 1000, 0.001));
  return report;
}
