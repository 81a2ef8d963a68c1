/**
 * LIVE_SOURCE=simulator: the in-process simulator of the upstream network and its control endpoint
 * (src/live.ts loads this module only in that mode: it brings the world generator and faker, which
 * a production install, `npm ci --omit=dev`, does not have).
 */
import type { Knex } from 'knex';
import type { Config } from './config';
import type { Logger } from './logger';
import { ResilientSource, type LiveSourceSettings, type SourceObserver } from './domain/live/resilience';
import { defaultAsOf } from './world/asOf';
import { loadSaved, saveSaved, type SavedSimulator } from './world/simulator/persistence';
import { startSimulatorServer, type SimulatorServer } from './world/simulator/server';
import { Simulator } from './world/simulator/simulator';
import { SimulatorSource } from './world/simulator/source';
import type { LiveSource } from './domain/live/source';

export async function wireSimulator(
  config: Config,
  deps: { db: Knex; logger: Logger },
  policy: LiveSourceSettings,
  observer: SourceObserver,
): Promise<{ source: LiveSource; simulator: Simulator; control: SimulatorServer; close(): Promise<void> }> {
  const sim = await inProcessSimulator(config, deps.db);
  let control: SimulatorServer | undefined;
  try {
    control = await startSimulatorServer(sim, { port: config.simulator.port });
  } catch {
    control = await startSimulatorServer(sim, { port: 0 });
  }
  deps.logger.warn(
    { control: control.url, world: sim.state().world, speed: sim.speed },
    'live source: the in-process SIMULATOR (LIVE_SOURCE=simulator): synthetic data, for development only',
  );
  const source = new ResilientSource(new SimulatorSource(sim), policy, observer);
  const save = () => saveSaved(deps.db, savedOf(sim)).catch(() => undefined);
  const timer = setInterval(save, 10_000);
  timer.unref();
  return {
    source,
    simulator: sim,
    control,
    close: async () => {
      clearInterval(timer);
      await save();
      await control?.close();
    },
  };
}

function savedOf(sim: Simulator): SavedSimulator {
  const w = sim.state().world;
  return { world: { persons: w.persons, companies: w.companies, seed: w.seed, as_of: w.as_of }, sim_time: new Date(sim.now()).toISOString() };
}

/**
 * The world of the saved state when its size and seed are the configured ones (the lake was loaded
 * from it), continuing from its saved simulated time; otherwise the configured world from its start.
 */
async function inProcessSimulator(config: Config, db: Knex): Promise<Simulator> {
  const c = config.simulator;
  const saved = await loadSaved(db);
  const matches = saved && saved.world.persons === c.persons && saved.world.companies === c.companies && saved.world.seed === c.seed;
  const asOf = c.asOf ?? (matches ? new Date(saved.world.as_of) : defaultAsOf());
  const startAt = matches && saved.sim_time && !c.asOf ? new Date(saved.sim_time) : asOf;
  const sim = new Simulator({
    world: { persons: c.persons, companies: c.companies, seed: c.seed, asOf },
    rates: c.rates,
    speed: c.speed,
    startAt,
  });
  await saveSaved(db, savedOf(sim));
  return sim;
}

