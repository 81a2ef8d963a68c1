import type { Knex } from 'knex';

/**
 * The SQL statements run on this knex instance (the app's own: the harness hands it to createApp)
 * while fn executes. preparedQuery's named statements bypass knex and are not seen.
 */
export async function queriesDuring(knex: Knex, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (q: { sql: string }) => seen.push(q.sql);
  knex.on('query', listener);
  try {
    await fn();
  } finally {
    knex.off('query', listener);
  }
  return seen;
}
