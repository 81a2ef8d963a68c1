/**
 * The upload's bytes into rows, streamed (issue 34, points 1, 2, 9): never more than one record and
 * one batch of rows in memory, whatever the file's size. Pure: no database (upload.ts stores).
 *
 * CSV in two steps. `RecordSplitter` cuts the bytes into records at line ends outside quotes
 * (RFC 4180: a quoted field may hold line ends; `""` toggles twice), bounded by MAX_RECORD_BYTES:
 * a longer record (a 10 MB field, or an opening quote never closed, which runs to the end of the
 * file) becomes one failed row instead of an unbounded buffer, and the rows after it still run.
 * Each record is decoded strictly (invalid UTF-8 is a failed row, not a replacement character in a
 * result), then batches of records are parsed by csv-parse (quoted fields, `""`, CR LF, quotes
 * inside unquoted fields tolerated); a batch csv-parse refuses is parsed record by record, so one
 * bad record fails only its row. The delimiter (comma or semicolon) is the one the header uses
 * outside quotes; a BOM is dropped. Blank lines are no rows.
 *
 * NDJSON: one JSON object per line (same bound); the columns are the first object's keys.
 */
import { parse } from 'csv-parse/sync';

/** The longest record (CSV) or line (NDJSON) read as a row; longer ones are failed rows. */
export const MAX_RECORD_BYTES = 1024 * 1024;

export type RawRecord = { bytes: Buffer; problem: null } | { bytes: null; problem: string };

const QUOTE = 0x22;
const LF = 0x0a;

/** Cuts a byte stream into records (see the file's comment). `quotes` false for NDJSON lines. */
export class RecordSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private inQuotes = false;
  private tooLong = false;
  private line = 1;
  private recordLine = 1;
  constructor(private readonly quotes: boolean) {}

  /** The records completed by this chunk. */
  push(chunk: Buffer): RawRecord[] {
    const out: RawRecord[] = [];
    let start = 0;
    const quotes = this.quotes;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === QUOTE && quotes) this.inQuotes = !this.inQuotes;
      else if (b === LF) {
        this.line++;
        if (!this.inQuotes) {
          this.append(chunk.subarray(start, i + 1));
          out.push(this.take());
          start = i + 1;
        }
      }
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
    return out;
  }

  /** The last record (no final line end), if any. */
  end(): RawRecord[] {
    if (!this.size && !this.tooLong) return [];
    if (this.inQuotes) {
      const line = this.recordLine;
      this.parts = [];
      this.size = 0;
      this.tooLong = false;
      return [{ bytes: null, problem: `unbalanced quote: the quote opened on line ${line} is never closed` }];
    }
    return [this.take()];
  }

  private append(piece: Buffer): void {
    if (this.tooLong) return;
    if (this.size + piece.length > MAX_RECORD_BYTES) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    // A copy: a record held across chunks does not keep each whole chunk alive.
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private take(): RawRecord {
    const line = this.recordLine;
    this.recordLine = this.line;
    const record: RawRecord = this.tooLong
      ? {
          bytes: null,
          problem: this.inQuotes
            ? `unbalanced quote: the quote opened on line ${line} is never closed`
            : `row longer than ${MAX_RECORD_BYTES} bytes (line ${line})`,
        }
      : { bytes: this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size), problem: null };
    this.parts = [];
    this.size = 0;
    this.tooLong = false;
    return record;
  }
}

const strict = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** A record's text, or why it cannot be read (the lossy text kept for the row's echo). */
export function decodeRecord(bytes: Buffer): { text: string; problem: string | null } {
  try {
    return { text: strict.decode(bytes), problem: null };
  } catch {
    return { text: lossy.decode(bytes), problem: 'invalid UTF-8' };
  }
}

export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Blank: nothing but a line end (and spaces). */
export const isBlank = (text: string) => text.trim() === '';

/** Comma or semicolon: whichever the header has more of outside quotes (comma on a tie). */
export function detectDelimiter(header: string): ',' | ';' {
  let inQuotes = false;
  let commas = 0;
  let semicolons = 0;
  for (const c of header) {
    if (c === '"') inQuotes = !inQuotes;
    else if (!inQuotes && c === ',') commas++;
    else if (!inQuotes && c === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

const csvOptions = (delimiter: string) => ({
  delimiter,
  record_delimiter: '\n',
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: false,
  bom: false,
});

/** A record without its line end (LF or CR LF): records are joined with LF for csv-parse. */
const bare = (text: string) => text.replace(/\r?\n$/, '');

/** One CSV record's fields, or why csv-parse refused it. */
export function parseCsvRecord(text: string, delimiter: string): { values: string[] | null; problem: string | null } {
  try {
    const rows = parse(bare(text), csvOptions(delimiter)) as string[][];
    if (rows.length !== 1) return { values: null, problem: 'unreadable CSV row' };
    return { values: rows[0]!, problem: null };
  } catch (e) {
    return { values: null, problem: `unreadable CSV row (${(e as { code?: string }).code ?? 'parse error'})` };
  }
}

/** Several records at once (csv-parse's cost is per call); record by record when the batch fails. */
export function parseCsvRecords(texts: readonly string[], delimiter: string): { values: string[] | null; problem: string | null }[] {
  if (!texts.length) return [];
  try {
    const joined = texts.map(bare).join('\n');
    const rows = parse(joined, csvOptions(delimiter)) as string[][];
    if (rows.length === texts.length) return rows.map((values) => ({ values, problem: null }));
  } catch {
    // below
  }
  return texts.map((t) => parseCsvRecord(t, delimiter));
}

/** An NDJSON line's object with its values as text, or why it is not one. */
export function parseNdjsonLine(text: string): { object: Record<string, unknown> | null; problem: string | null } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { object: null, problem: 'not valid JSON' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { object: null, problem: 'not a JSON object' };
  return { object: value as Record<string, unknown>, problem: null };
}

/** A JSON value as a cell's text (objects and arrays as JSON). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const NUL = /\u0000/g;

/**
 * What a row's values are checked for once parsed: the NUL character (which PostgreSQL cannot
 * store: it is dropped from the stored echo, and the row fails) and a count of fields that is not
 * the header's (a ragged row: which value belongs to which column is a guess).
 */
export function rowProblem(values: readonly string[], headerLength: number | null): string | null {
  if (values.some((v) => v.includes('\u0000'))) return 'NUL character in a field';
  if (headerLength !== null && values.length !== headerLength) {
    return `ragged row: ${values.length} field${values.length === 1 ? '' : 's'} where the header has ${headerLength}`;
  }
  return null;
}

export const withoutNul = (v: string) => v.replace(NUL, '');
