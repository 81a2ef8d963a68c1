/**
 * GET /jobs/{id}/results (issue 34, point 4): every input row once, in input order, streamed from
 * PostgreSQL in pages of PAGE_ROWS (a keyset on (job, row)) through csv-stringify or as NDJSON,
 * never the whole result in memory. While the job runs, the download holds the rows done so far:
 * it stops before the first row not done yet, so what was downloaded is always a prefix of the
 * final file, and `from_row` resumes a broken download at any row.
 *
 * CSV: the original columns, then `_row`, `_outcome` (matched, unmatched, failed), `_likelihood`,
 * `_evidence` (the comparison vector's summary), `_reason` (why failed or unmatched), `_record_id`
 * and the default fields of the record (DEFAULT_FIELDS); a header column of the input that clashes
 * with one of these keeps its name (ours are prefixed with `_`). NDJSON: one object per row:
 * {row, input (column -> value), outcome, likelihood, evidence, reason, record_id, record (the
 * whole record, as GET /person answers it)}.
 */
import { Readable, pipeline } from 'node:stream';
import type { Knex } from 'knex';
import { stringify } from 'csv-stringify';
import * as repo from '../../db/repositories/listJobs';

const PAGE_ROWS = 1000;

/** The record fields every CSV result row carries (the README lists them). */
export const DEFAULT_FIELDS = ['full_name', 'current_title', 'current_company', 'geo_city', 'geo_country_code', 'network_url', 'username'] as const;

const OUTCOME_COLUMNS = ['_row', '_outcome', '_likelihood', '_evidence', '_reason', '_record_id', ...DEFAULT_FIELDS.map((f) => `_${f}`)];

async function* resultRows(db: Knex, jobId: string, fromRow: number): AsyncGenerator<repo.ResultRow> {
  let next = fromRow;
  for (;;) {
    const rows = await repo.readResults(db, jobId, next, PAGE_ROWS);
    for (const r of rows) {
      // The first row not done yet ends the download (the rows done so far, in order).
      if (r.outcome === null) return;
      yield r;
    }
    if (rows.length < PAGE_ROWS) return;
    next = rows[rows.length - 1]!.row_no + 1;
  }
}

function recordFields(text: string | null): Record<string, unknown> | null {
  return text ? (JSON.parse(text) as Record<string, unknown>) : null;
}

function csvLine(r: repo.ResultRow, width: number): unknown[] {
  const input = (Array.isArray(r.input) ? r.input : []) as string[];
  const cells = Array.from({ length: width }, (_, i) => input[i] ?? '');
  const rec = recordFields(r.record);
  return [
    ...cells,
    r.row_no,
    r.outcome,
    r.likelihood ?? '',
    r.evidence ?? '',
    r.reason ?? '',
    r.record_id ?? '',
    ...DEFAULT_FIELDS.map((f) => (rec?.[f] ?? '') as string),
  ];
}

/** The CSV download as a stream. */
export function csvResults(db: Knex, job: repo.JobRow, fromRow: number): Readable {
  const out = stringify({ header: true, columns: [...job.columns, ...OUTCOME_COLUMNS], cast: { number: (n) => String(n) } });
  const source = Readable.from(
    (async function* () {
      for await (const r of resultRows(db, job.id, fromRow)) yield csvLine(r, job.columns.length);
    })(),
  );
  // pipeline: a download broken off destroys the source too (no query left running for no one).
  pipeline(source, out, () => undefined);
  return out;
}

/** The NDJSON download as a stream. */
export function ndjsonResults(db: Knex, job: repo.JobRow, fromRow: number): Readable {
  return Readable.from(
    (async function* () {
      for await (const r of resultRows(db, job.id, fromRow)) {
        const values = (Array.isArray(r.input) ? r.input : []) as string[];
        const input = Object.fromEntries(job.columns.map((c, i) => [c, values[i] ?? null]));
        // The record's text is spliced in as it is stored (no parse and stringify of each record).
        const head = JSON.stringify({
          row: r.row_no,
          input,
          outcome: r.outcome,
          likelihood: r.likelihood,
          evidence: r.evidence,
          reason: r.reason,
          record_id: r.record_id,
        });
        yield `${head.slice(0, -1)},"record":${r.record ?? 'null'}}\n`;
      }
    })(),
  );
}
