/** Helpers shared by the CLI's command modules. */
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../config';
import { migrateLatest, openDatabase, type Knex } from '../db/knex';

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
export async function withDatabase<T>(fn: (knex: Knex) => Promise<T>): Promise<T> {
  const db = await openDatabase(loadConfig());
  try {
    await migrateLatest(db.knex);
    return await fn(db.knex);
  } finally {
    await db.close();
  }
}

export function print(json: boolean, value: object, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

