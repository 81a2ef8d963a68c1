/**
 * POST /jobs: the upload, streamed into PostgreSQL (issue 34, points 1, 2, 9). The request body is
 * read chunk by chunk (`for await`, so a slow insert slows the client down instead of filling
 * memory), cut into records (records.ts), and stored in batches of BATCH_ROWS rows, one statement
 * each. The header (CSV) or first object (NDJSON) is checked before the job exists: an upload no
 * column of which can identify or match anyone is a 400 that stores nothing. A body over the byte
 * limit (its Content-Length, or its bytes as counted) or over the row limit is a 413 and the job,
 * rows included, is deleted: nothing is kept. So is an upload the client breaks off.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import * as repo from '../../db/repositories/listJobs';
import { AppError, validationError } from '../errors';
import { generateWebhookSecret, type ServerKeys } from '../webhooks/secrets';
import { assertWebhookUrlAllowed, type ResolveHost, type SsrfPolicy } from '../webhooks/ssrf';
import { foldHeader, mapColumns, mappingIsUsable, MappingError, unusableColumnsMessage, type ColumnMapping } from './columns';
import { purgeDeletedJob, toJob, type ListJob } from './jobs';
import {
  cellText,
  decodeRecord,
  detectDelimiter,
  isBlank,
  parseCsvRecord,
  parseCsvRecords,
  parseNdjsonLine,
  RecordSplitter,
  rowProblem,
  stripBom,
  withoutNul,
  type RawRecord,
} from './records';

export interface JobLimits {
  maxUploadBytes: number;
  maxRows: number;
  chunkRows: number;
  retentionDays: number;
}

export interface SubmitDeps {
  db: Knex;
  limits: JobLimits;
  /** The completion webhook's URL rules and secret keys (those of monitors). */
  webhooks: { keys: ServerKeys; ssrf: SsrfPolicy; resolveHost: ResolveHost };
}

export interface SubmitParams {
  kind?: 'person';
  min_likelihood?: number;
  mapping?: string;
  webhook_url?: string;
}

export interface Upload {
  format: 'csv' | 'ndjson';
  /** Content-Length when sent. */
  declaredBytes: number | undefined;
  body: AsyncIterable<Buffer>;
}

/** Rows per insert statement. */
const BATCH_ROWS = 1000;
const DEFAULT_MIN_LIKELIHOOD = 0.7;

export const uploadUnusable = (message: string) => new AppError('JOB_UPLOAD_UNUSABLE', message);
const tooLarge = (message: string) => new AppError('JOB_UPLOAD_TOO_LARGE', message, { Connection: 'close' });

function explicitMapping(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationError('mapping: must be a JSON object of field to column header, e.g. {"email":"E-mail Address"}');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw validationError('mapping: must be a JSON object of field to column header (strings), e.g. {"email":"E-mail Address"}');
  }
  return value as Record<string, string>;
}

export async function submitJob(deps: SubmitDeps, workspaceId: string, params: SubmitParams, upload: Upload): Promise<{ job: ListJob; webhook_secret: string | null }> {
  const { limits } = deps;
  if (upload.declaredBytes !== undefined && upload.declaredBytes > limits.maxUploadBytes) {
    throw tooLarge(`The upload is ${upload.declaredBytes} bytes; the limit is ${limits.maxUploadBytes} bytes. Split the file.`);
  }
  const explicit = explicitMapping(params.mapping);
  let secret: string | null = null;
  let secretCiphertext: string | null = null;
  if (params.webhook_url !== undefined) {
    await assertWebhookUrlAllowed(params.webhook_url, deps.webhooks.ssrf, deps.webhooks.resolveHost);
    secret = generateWebhookSecret();
    secretCiphertext = deps.webhooks.keys.encrypt(secret);
  }
  const jobId = randomUUID();
  const reader = new UploadReader(upload.format, explicit, limits);
  let created = false;
  let batch: repo.InputRow[] = [];
  const flush = async () => {
    if (!created) {
      const { columns, mapping } = reader.settled();
      await repo.insertUploadingJob(deps.db, {
        id: jobId,
        workspace_id: workspaceId,
        format: upload.format,
        min_likelihood: params.min_likelihood ?? DEFAULT_MIN_LIKELIHOOD,
        columns,
        mapping: mapping as Record<string, number>,
        webhook_url: params.webhook_url ?? null,
        secret_ciphertext: secretCiphertext,
        retention_days: limits.retentionDays,
      });
      created = true;
    }
    const rows = batch;
    batch = [];
    await repo.insertInputRows(deps.db, jobId, rows);
  };
  try {
    let bytes = 0;
    for await (const chunk of upload.body) {
      bytes += chunk.length;
      if (bytes > limits.maxUploadBytes) throw tooLarge(`The upload is over the limit of ${limits.maxUploadBytes} bytes. Split the file.`);
      for (const row of reader.push(chunk)) {
        batch.push(row);
        if (batch.length >= BATCH_ROWS) await flush();
      }
    }
    for (const row of reader.end()) batch.push(row);
    if (!reader.headerSeen) throw uploadUnusable('The upload is empty: send a header line and at least one row.');
    if (reader.rows === 0) throw uploadUnusable('The upload has a header but no rows.');
    await flush();
    await repo.queueUploadedJob(deps.db, jobId, reader.rows, bytes, limits.chunkRows);
  } catch (err) {
    // Nothing of a refused or broken-off upload is kept.
    if (created) await discardUpload(deps.db, jobId);
    // The client broke the body off (the socket closed mid-upload): its fault, not the service's.
    const code = (err as { code?: string }).code;
    if (!(err instanceof AppError) && (code === 'ECONNRESET' || code === 'ECONNABORTED' || (err as Error).message === 'aborted')) {
      throw validationError('The upload was broken off before its end; nothing was kept.');
    }
    throw err;
  }
  const row = await repo.findJob(deps.db, workspaceId, jobId);
  return { job: toJob(row!), webhook_secret: secret };
}

/**
 * Bytes in, rows out: the header first (its columns and mapping, or the 400), then each row with
 * its number (1 = the first after the header), its echo and its problem, if any.
 */
export class UploadReader {
  private splitter: RecordSplitter;
  headerSeen = false;
  rows = 0;
  private columns: string[] = [];
  private mapping: ColumnMapping = {};
  private delimiter = ',';
  private first = true;

  constructor(
    private readonly format: 'csv' | 'ndjson',
    private readonly explicit: Record<string, string>,
    private readonly limits: Pick<JobLimits, 'maxRows'>,
  ) {
    this.splitter = new RecordSplitter(format === 'csv');
  }

  settled(): { columns: string[]; mapping: ColumnMapping } {
    return { columns: this.columns, mapping: this.mapping };
  }

  push(chunk: Buffer): repo.InputRow[] {
    return this.rowsOf(this.splitter.push(chunk));
  }

  end(): repo.InputRow[] {
    return this.rowsOf(this.splitter.end());
  }

  private rowsOf(records: RawRecord[]): repo.InputRow[] {
    const out: repo.InputRow[] = [];
    // Decoded records of this call waiting for one csv-parse call.
    let pending: { text: string; problem: string | null }[] = [];
    const drain = () => {
      if (!pending.length) return;
      const good = pending.filter((p) => p.problem === null);
      const parsed = parseCsvRecords(good.map((p) => p.text), this.delimiter);
      let g = 0;
      for (const p of pending) {
        if (p.problem !== null) out.push(this.row(p.text === '' ? [] : [withoutNul(p.text.replace(/\r?\n$/, ''))], p.problem));
        else {
          const r = parsed[g++]!;
          out.push(r.values ? this.row(r.values, rowProblem(r.values, this.columns.length)) : this.row([withoutNul(p.text.replace(/\r?\n$/, ''))], r.problem));
        }
      }
      pending = [];
    };
    for (const record of records) {
      let text = '';
      let problem: string | null = record.problem;
      if (record.bytes) {
        const decoded = decodeRecord(record.bytes);
        text = decoded.text;
        problem = decoded.problem;
      }
      if (this.first) {
        text = stripBom(text);
        if (problem === null && isBlank(text)) continue;
        this.first = false;
        this.header(text, problem);
        // NDJSON: the first line is a row too.
        if (this.format === 'ndjson') out.push(this.ndjsonRow(text, null));
        continue;
      }
      if (problem === null && isBlank(text)) continue;
      if (this.format === 'ndjson') out.push(this.ndjsonRow(text, problem));
      else pending.push({ text, problem });
    }
    drain();
    return out;
  }

  private header(text: string, problem: string | null): void {
    this.headerSeen = true;
    if (problem !== null) throw uploadUnusable(`The first line cannot be read: ${problem}.`);
    let columns: string[];
    if (this.format === 'csv') {
      this.delimiter = detectDelimiter(text);
      const parsed = parseCsvRecord(text, this.delimiter);
      if (!parsed.values) throw uploadUnusable(`The header line cannot be read: ${parsed.problem}.`);
      columns = parsed.values.map((c) => c.trim());
      if (columns.some((c) => c.includes('\u0000'))) throw uploadUnusable('The header line holds a NUL character.');
      // Headers equal once folded (`email`, `EMAIL`, `E.mail`...) are duplicates.
      const seen = new Map<string, number>();
      columns.forEach((c, i) => {
        const folded = foldHeader(c);
        if (folded === '') return;
        const before = seen.get(folded);
        if (before !== undefined) throw uploadUnusable(`Duplicate header "${c.slice(0, 60)}" (columns ${before + 1} and ${i + 1}): which one to read is a guess; rename one.`);
        seen.set(folded, i);
      });
    } else {
      const parsed = parseNdjsonLine(text);
      if (!parsed.object) throw uploadUnusable(`The first line is ${parsed.problem}: NDJSON is one JSON object per line.`);
      columns = Object.keys(parsed.object);
    }
    try {
      this.mapping = mapColumns(columns, this.explicit);
    } catch (e) {
      if (e instanceof MappingError) throw validationError(e.message);
      throw e;
    }
    if (!mappingIsUsable(this.mapping)) throw uploadUnusable(unusableColumnsMessage(columns));
    this.columns = columns;
  }

  private row(values: readonly string[], problem: string | null): repo.InputRow {
    this.rows++;
    if (this.rows > this.limits.maxRows) throw tooLarge(`The upload has more than ${this.limits.maxRows} rows. Split the file.`);
    return { row_no: this.rows, input: JSON.stringify(values.map(withoutNul)), problem };
  }

  private ndjsonRow(text: string, problem: string | null): repo.InputRow {
    if (problem !== null) return this.row([], problem);
    const parsed = parseNdjsonLine(text);
    if (!parsed.object) return this.row([], parsed.problem);
    const values = this.columns.map((c) => cellText(parsed.object![c]));
    return this.row(values, rowProblem(values, null));
  }
}

/**
 * Nothing of a refused or broken-off upload is kept: the job is marked deleted (never listed, never
 * claimed) and its stored rows removed in batches; if the database fails meanwhile, the jobs' sweep
 * removes what is left (a mark that failed too leaves an `uploading` job, which the sweep takes
 * after an hour).
 */
async function discardUpload(db: Knex, jobId: string): Promise<void> {
  try {
    await repo.markJobDeleted(db, jobId);
    await purgeDeletedJob(db, jobId, DISCARD_PURGE_MS);
  } catch {
    // The sweep finishes it; the client's answer is the upload's own error.
  }
}

const DISCARD_PURGE_MS = 2_000;
