/**
 * What a database failure means for the caller, decided by error class and SQLSTATE, never by
 * message text: the edge answers `unavailable` with 503 SERVICE_UNAVAILABLE (retry later) and
 * `invalid_input` with 400, and anything else is a bug (500).
 */
import { KnexTimeoutError } from 'knex';

/** The database could not be reached, did not answer in time, or lost the connection mid-query. */
export class DatabaseUnavailableError extends Error {
  constructor(
    readonly reason: 'connect' | 'timeout' | 'connection_lost' | 'pool_timeout',
    readonly cause?: unknown,
  ) {
    super(`database unavailable (${reason})${cause instanceof Error && cause.message ? `: ${cause.message}` : ''}`);
  }
}

export type DatabaseFault = 'unavailable' | 'invalid_input';

/**
 * SQLSTATE classes of an unavailable server: 08 connection exception, 53 insufficient resources
 * (too many connections, out of memory, disk full), 57 operator intervention (statement timeout
 * 57014, shutdown 57P01/57P02, starting up 57P03), 58 system error; plus 40001/40P01
 * (serialization failure, deadlock), which a retry resolves.
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|58)[0-9A-Z]{3}$|^40001$|^40P01$/;
/** Node system errors of a socket to the database. */
const UNAVAILABLE_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function classifyDatabaseError(err: unknown): DatabaseFault | undefined {
  if (err instanceof DatabaseUnavailableError || err instanceof KnexTimeoutError) return 'unavailable';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SYSCALL.has(code)) return 'unavailable';
  // Class 22 (data exception) can only come from a value the caller sent.
  if (/^22[0-9A-Z]{3}$/.test(code)) return 'invalid_input';
  return undefined;
}
