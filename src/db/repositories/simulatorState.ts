/** The live-source simulator's saved state (migration 20261122001000_live): tooling, not product data. */
import type { Knex } from 'knex';

export async function loadSimulatorState<T>(db: Knex, name: string): Promise<T | undefined> {
  const row = await db('simulator_state').where({ name }).first('state');
  return row?.state as T | undefined;
}

export async function saveSimulatorState(db: Knex, name: string, state: object): Promise<void> {
  await db('simulator_state')
    .insert({ name, state: JSON.stringify(state), updated_at: db.fn.now() })
    .onConflict('name')
    .merge(['state', 'updated_at']);
}
