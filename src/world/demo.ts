/**
 * `npm start` on an empty lake: a small deterministic world, so the demo serves real profiles at
 * once. The lake gets 2,700 of the world's 3,000 persons: the in-process live-source simulator
 * (LIVE_SOURCE=simulator) holds the whole world, so a realtime lookup of one of the other 300 is a
 * miss the source can answer. The world's options are saved for the simulator.
 */
import type { Knex } from 'knex';
import { countPersons, samplePersonUsername } from '../db/repositories/personRecords';
import { defaultAsOf } from '.';
import { seedLake, type SeedReport } from './seed';
import { loadSaved, saveSaved } from './simulator/persistence';

export const DEMO_WORLD = { persons: 3000, companies: 150, seed: 2026 } as const;
export const DEMO_LOADED_PERSONS = 2700;

export async function ensureDemoWorld(db: Knex): Promise<{ loaded?: SeedReport; sampleUsername?: string }> {
  let loaded: SeedReport | undefined;
  if ((await countPersons(db)) === 0) {
    const asOf = defaultAsOf();
    loaded = await seedLake(db, { ...DEMO_WORLD, asOf, loadPersons: DEMO_LOADED_PERSONS });
    await saveSaved(db, { world: { ...DEMO_WORLD, as_of: asOf.toISOString() } });
  } else if (!(await loadSaved(db))) {
    // A lake loaded before the simulator existed: the whole demo world, dated today.
    await saveSaved(db, { world: { ...DEMO_WORLD, as_of: defaultAsOf().toISOString() } });
  }
  return { loaded, sampleUsername: await samplePersonUsername(db) };
}
