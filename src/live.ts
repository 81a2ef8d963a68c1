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
import type { SimulatorServer } from './world/simulator/server';
import type { Simulator } from './world/simulator/simulator';

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
    // The simulator and the world generator behind it (faker) are development tooling, optional
    // dependencies a production install leaves out: loaded only in this mode.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { wireSimulator } = require('./liveSimulator') as typeof import('./liveSimulator');
    return wireSimulator(config, deps, policy, observer);
  }

  deps.logger.warn(
    'live source: none configured (set LIVE_SOURCE_URL, or LIVE_SOURCE=simulator for development): realtime operations answer 503 LIVE_SOURCE_UNAVAILABLE',
  );
  return { source: new NoLiveSource(), close: async () => {} };
}
