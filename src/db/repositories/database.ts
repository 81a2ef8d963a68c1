/** The database as a dependency: the trivial query a readiness check runs. */
import type { Knex } from 'knex';

export async function ping(db: Knex): Promise<void> {
  await db.raw('select 1');
}
