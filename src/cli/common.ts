/**
 * Helpers shared by the CLI's command modules. Nothing here loads the database driver or the
 * server: `enrich --help` must start at once, so the heavy modules are imported by the actions
 * that need them (see lazy.ts).
 */
import { InvalidArgumentError } from 'commander';
import type { Knex } from 'knex';
import { load } from './lazy';

/** Where a command writes and what environment it reads: the process's own, or a test's. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
}

export interface OutputStream {
  write(chunk: string): unknown;
  /** A terminal gets a live progress bar; anything else gets plain lines. */
  isTTY?: boolean;
}

export function positiveInt(value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

export function isoDate(value: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new InvalidArgumentError('must be an ISO 8601 date-time');
  return d;
}

/** Opens the database (embedded or DATABASE_URL), brings the schema up to date, runs, closes. */
export async function withDatabase<T>(io: CliIo, fn: (knex: Knex) => Promise<T>): Promise<T> {
  const { migrateLatest, openDatabase } = load.database();
  const db = await openDatabase(load.config().loadConfig(io.env));
  try {
    await migrateLatest(db.knex);
    return await fn(db.knex);
  } finally {
    await db.close();
  }
}

export function print(io: CliIo, json: boolean, value: object, human: string): void {
  io.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}
