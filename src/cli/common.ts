/**
 * Helpers shared by the CLI's command modules. Nothing here loads the database driver or the
 * server: `enrich --help` must start at once, so the heavy modules are imported by the actions
 * that need them (see lazy.ts).
 */
import { InvalidArgumentError } from 'commander';
import type { Knex } from 'knex';
import type { CliIo } from './io';
import { load } from './lazy';

export type { CliIo, OutputStream } from './io';

export function positiveInt(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/**
 * A strict ISO 8601 date or date-time: `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDThh:mm[:ss[.fff]]`
 * with `Z` or an offset. Nothing else: `new Date()` would take `0` (2000-01-01) or roll
 * `2027-02-30` over into March.
 */
export function parseIsoDate(value: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2})))?$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', frac = '', zone, oh = '00', om = '00'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, hh, mi, ss].map(Number);
  if (m[4] !== undefined && zone === undefined) return undefined;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // The calendar day must exist: Date.UTC rolls 30 February over into March.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const offsetMs = zone && zone !== 'Z' ? (zone[0] === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  return new Date(utc - offsetMs);
}

export function isoDate(value: string): Date {
  const d = parseIsoDate(value);
  if (!d) throw new InvalidArgumentError('must be an ISO 8601 date (2027-01-31) or date-time with an offset (2027-01-31T12:00:00Z)');
  return d;
}

/** A duration such as `90s`, `30m`, `24h`, `7d` (or `0`), in milliseconds. */
export function duration(value: string): number {
  const m = /^([0-9]{1,6})(s|m|h|d)?$/.exec(value);
  if (!m || (m[2] === undefined && m[1] !== '0')) throw new InvalidArgumentError('must be a duration such as 30m, 24h or 7d');
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** Thrown by an action to end the command with this exit status, its output already written. */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/**
 * Opens the database (embedded or DATABASE_URL), brings the schema up to date (unless `migrate:
 * false`, for the migrate command itself, which reports what it applies), runs, closes.
 */
export async function withDatabase<T>(io: CliIo, fn: (knex: Knex) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  const { migrateLatest, openDatabase } = load.database();
  const db = await openDatabase(load.config().loadConfig(io.env), undefined, (line) => void io.stderr.write(`${line}\n`));
  try {
    if (opts.migrate !== false) await migrateLatest(db.knex);
    return await fn(db.knex);
  } finally {
    await db.close();
  }
}

export function print(io: CliIo, json: boolean, value: object, human: string): void {
  io.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}
