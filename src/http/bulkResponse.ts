/**
 * The body of both bulk operations (the contract's BulkEnrichResponse without the envelope): each
 * matched record is a RawJson, so the edge splices the stored text in instead of parsing up to
 * 500 records only to serialize them again.
 */
import type { BulkOutcome } from '../domain/people/bulk';
import { RawJson } from './rawJson';

export function bulkResponseBody(outcome: BulkOutcome) {
  return {
    results: outcome.results.map(({ record, ...item }) => ({ ...item, data: record === null ? null : new RawJson(record) })),
    matched: outcome.matched,
    unmatched: outcome.unmatched,
    failed: outcome.failed,
  };
}
