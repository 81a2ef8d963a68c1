/**
 * The in-process simulator keeps its world and simulated clock in the database between runs of
 * `npm start`, so the world the lake was loaded from keeps evolving from where it was (and does not
 * jump ahead by the time the server was down, nor start over).
 */
import type { Knex } from 'knex';
import { loadSimulatorState, saveSimulatorState } from '../../db/repositories/simulatorState';

export const SIMULATOR_STATE = 'in-process';

export interface SavedSimulator {
  world: { persons: number; companies: number; seed: number; as_of: string };
  /** Simulated time when saved; absent before the simulator first ran. */
  sim_time?: string;
}

export const loadSaved = (db: Knex) => loadSimulatorState<SavedSimulator>(db, SIMULATOR_STATE);
export const saveSaved = (db: Knex, state: SavedSimulator) => saveSimulatorState(db, SIMULATOR_STATE, state);
