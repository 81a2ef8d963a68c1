/**
 * Process wiring of the live source, chosen explicitly by the configuration:
 *   LIVE_SOURCE_URL          the http adapter (openapi/live-source/live-source.yaml)
 *   LIVE_SOURCE=simulator    the in-process simulator (npm start), its control endpoint on loopback
 *   neither                  none: realtime answers 503 and the refresh idles, both logged
 * Each is wrapped in the same resilience policy (deadline, circuit breaker, concurrency cap).
 */
import type { Knex } from 'knex';
import type { Config } from './config';
import type { Logger } from './logger';
import { HttpLiveSource } from './domain/live/httpSource';
import { ResilientSource, type SourceObserver } from './domain/live/resilience';
import { NoLiveSource, type LiveSource } from './domain/live/source';
import { recordValidator } from './http/recordSchemas';
import { defaultAsOf } from './world';
import { DEMO_WORLD } from './world/demo';
import { loadSaved, saveSaved, type SavedSimulator } from './world/simulator/persistence';
import { startSimulatorServer, type SimulatorServer } from './world/simulator/server';
import { Simulator } from './world/simulator/simulator';
import { SimulatorSource } from './world/simulator/source';

export interface LiveWiring {
  source: LiveSource;
  simulator?: Simulator;
  /** The in-process simulator's control endpoint (advance time, inject faults). */
  control?: SimulatorServer;
  close(): Promise<void>;
}

export async function createLiveSource(
  config: Config,
  deps: { db: Knex; logger: Logger; observer?: SourceObserver },
): Promise<LiveWiring> {
  const { live } = config;
  // The settings are the policy's options (one declaration: LiveSourceSettings).
  const policy = live;
  const observer: SourceObserver = {
    call: (op, outcome, seconds, failure) => deps.observer?.call(op, outcome, seconds, failure),
    breaker: (state) => {
      deps.observer?.breaker(state);
      const log = state === 'closed' ? deps.logger.info.bind(deps.logger) : deps.logger.warn.bind(deps.logger);
      log({ state }, `live source circuit ${state}`);
    },
  };

  if (live.mode === 'http') {
    const raw = new HttpLiveSource({
      url: live.url as string,
      token: live.token,
      authHeader: live.authHeader,
      connections: live.concurrency,
      timeoutMs: Math.max(live.timeoutMs, live.batchTimeoutMs),
      validatePerson: recordValidator('PersonResult'),
      validateCompany: recordValidator('CompanyResult'),
    });
    deps.logger.info({ url: live.url }, 'live source: http');
    const source = new ResilientSource(raw, policy, observer);
    return { source, close: () => source.close() };
  }

  if (live.mode === 'simulator') {
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

  deps.logger.warn(
    'live source: none configured (set LIVE_SOURCE_URL, or LIVE_SOURCE=simulator for development): realtime operations answer 503 LIVE_SOURCE_UNAVAILABLE',
  );
  return { source: new NoLiveSource(), close: async () => {} };
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

export { DEMO_WORLD };
