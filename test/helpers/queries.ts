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

/** The texts of preparedQuery's named statements run on this knex instance while fn executes. */
export async function preparedDuring(knex: Knex, fn: () => Promise<unknown>): Promise<string[]> {
  type Prepared = (name: string, text: string, values: unknown[]) => Promise<unknown[]>;
  const client = knex.client as { prepared: Prepared };
  const real = client.prepared;
  const own = Object.prototype.hasOwnProperty.call(client, 'prepared');
  const seen: string[] = [];
  client.prepared = function (this: unknown, name, text, values) {
    seen.push(text);
    return real.call(this, name, text, values);
  };
  try {
    await fn();
  } finally {
    if (own) client.prepared = real;
    else delete (client as Partial<typeof client>).prepared;
  }
  return seen;
}
