/**
 * What a database failure means for the caller, decided by error class and SQLSTATE, never by
 * message text: the edge answers `unavailable` with 503 SERVICE_UNAVAILABLE (retry later) and
 * `invalid_input` with 400, and anything else is a bug (500).
 */
import { KnexTimeoutError } from './knexLibrary';

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

/**
 * Whether the database refused a statement for a value in it: a data exception (class 22) or an
 * integrity constraint (class 23). Writing the same values again fails again; writing the others
 * without it succeeds (the importer and the refresh isolate such records this way).
 */
export function isRefusedValue(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return classifyDatabaseError(err) === 'invalid_input' || (typeof code === 'string' && code.startsWith('23'));
}

/**
 * A short reason for a value the database refused (class 22 or 23), without the statement: knex
 * puts the whole SQL text in front of the server's message (kilobytes for a batch upsert), which
 * no log line or import report should carry. The reason is the SQLSTATE, the table and column
 * when the server names them, the server's message (what follows knex's ` - `) and its detail,
 * bounded to a line.
 */
export function refusedValueReason(err: unknown): string {
  const e = err as { code?: unknown; detail?: unknown; message?: unknown; column?: unknown; table?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : 'unknown';
  // knex formats `<sql> - <server message>`: the server's message is the part after the last ' - '.
  const full = typeof e?.message === 'string' ? e.message : '';
  const cut = full.lastIndexOf(' - ');
  const message = cut >= 0 ? full.slice(cut + 3) : full;
  const where = typeof e?.table === 'string' ? ` (${e.table}${typeof e.column === 'string' ? `.${e.column}` : ''})` : '';
  const detail = typeof e?.detail === 'string' && e.detail ? `: ${e.detail}` : '';
  return bounded(`SQLSTATE ${code}${where}: ${message}${detail}`, 240);
}

const bounded = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
