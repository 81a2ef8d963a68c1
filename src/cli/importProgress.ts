/**
 * What `enrich import`'s progress bar counts: records (the file's lines), not bytes. An NDJSON file
 * (or a gzip one) does not say how many lines it holds, and counting them first would read it
 * twice, so the total is extrapolated from the share of the input's bytes read so far (compressed
 * bytes for gzip: the ratio holds as long as the records are alike), and is exact once it is all read.
 */
import type { ImportProgress } from '../domain/lake/importer';

export function recordEstimate(p: Pick<ImportProgress, 'lines' | 'bytesRead' | 'totalBytes'>): { done: number; total: number } {
  if (p.bytesRead >= p.totalBytes || p.bytesRead <= 0) return { done: p.lines, total: p.lines };
  return { done: p.lines, total: Math.max(p.lines, Math.round((p.lines * p.totalBytes) / p.bytesRead)) };
}
