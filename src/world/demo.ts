/** `npm start` on an empty lake: a small deterministic world, so the demo serves real profiles at once. */
import type { Knex } from 'knex';
import { countPersons, samplePersonUsername } from '../db/repositories/personRecords';
import { defaultAsOf } from '.';
import { seedLake, type SeedReport } from './seed';

const DEMO_WORLD = { persons: 3000, companies: 150, seed: 2026 } as const;

export async function ensureDemoWorld(db: Knex): Promise<{ loaded?: SeedReport; sampleUsername?: string }> {
  const loaded = (await countPersons(db)) === 0 ? await seedLake(db, { ...DEMO_WORLD, asOf: defaultAsOf() }) : undefined;
  return { loaded, sampleUsername: await samplePersonUsername(db) };
}
