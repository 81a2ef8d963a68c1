/**
 * bulkMatchPeople: up to 100 person queries, each answered on its own (matched, unmatched,
 * failed), a few at a time on the request's connection pool. A query's own min_likelihood wins
 * over the request's, which wins over the default; `candidates` is not used in bulk.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { AppError } from '../errors';
import { matchPerson, type PersonMatchRequest } from './person';
import { DEFAULT_MIN_LIKELIHOOD, type MatchVerdict } from './verdict';

type BulkMatchResult = components['schemas']['BulkMatchResult'];

export interface BulkMatchItem extends Omit<BulkMatchResult, 'data'> {
  /** The matched record's text, or null. */
  text: string | null;
}

export interface BulkMatchOutcome {
  results: BulkMatchItem[];
  matched: number;
  unmatched: number;
  failed: number;
}

/** Queries answered at the same time (each holds a connection for a few short reads). */
const CONCURRENCY = 4;

export async function bulkMatchPeople(db: Knex, queries: readonly PersonMatchRequest[], min = DEFAULT_MIN_LIKELIHOOD): Promise<BulkMatchOutcome> {
  const results: BulkMatchItem[] = new Array(queries.length);
  let next = 0;
  let failed = false;
  // A failure that is not a query's own (the database is out) fails the request: the other workers
  // then take no further query, so an outage costs one query's timeout, not the batch's.
  const worker = async () => {
    while (!failed && next < queries.length) {
      const i = next++;
      try {
        results[i] = await one(db, queries[i]!, min);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queries.length) }, worker));
  return {
    results,
    matched: results.filter((r) => r.status === 'matched').length,
    unmatched: results.filter((r) => r.status === 'unmatched').length,
    failed: results.filter((r) => r.status === 'failed').length,
  };
}

async function one(db: Knex, input: PersonMatchRequest, min: number): Promise<BulkMatchItem> {
  const empty = { likelihood: null, match: null as MatchVerdict | null, text: null };
  try {
    const { candidates: _ignored, ...query } = input;
    const outcome = await matchPerson(db, query, min);
    return { input, status: 'matched', code: null, error: null, likelihood: outcome.match.likelihood, match: outcome.match, text: outcome.text };
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === 'NO_MATCH') return { input, status: 'unmatched', code: 'NO_MATCH', error: e.message, ...empty };
    if (e.code === 'MATCH_INPUT_INSUFFICIENT' || e.code === 'VALIDATION_ERROR') return { input, status: 'failed', code: e.code, error: e.message, ...empty };
    throw e;
  }
}
