/**
 * The simulator of the upstream network: the synthetic world of `enrich seed`, evolving over a
 * simulated clock (evolution.ts), answering the live-source protocol's questions, with injected
 * latency and failures. Served over HTTP by server.ts (`enrich live-sim`) and called directly by
 * the in-process adapter (source.ts) under `npm start`.
 *
 * Simulated time: `now = start + (wall time since start) x speed + advanced`. With speed 0 it moves
 * only when advanced (tests); `advance()` is the control endpoint's and never goes backwards.
 *
 * It can hold more of the world than the lake: seed the lake with `--load-persons N` out of a world
 * of more persons, and the simulator still knows the rest (a realtime miss it can answer).
 */
import { createWorld, type World, type WorldOptions } from '..';
import type { CompanyResult } from '../companies';
import type { PersonResult } from '../persons';
import { isoSeconds } from '../support';
import { DEFAULT_RATES, Evolution, type EvolutionRates } from './evolution';

export interface Faults {
  /** Added to every protocol answer. */
  latencyMs: number;
  /** Uniform extra latency in [0, jitterMs). */
  jitterMs: number;
  /** Share of protocol calls answered 500. */
  errorRate: number;
  /** Share of protocol calls that never answer (the caller's timeout must fire). */
  timeoutRate: number;
  /** Every protocol call answers 503 while true. */
  outage: boolean;
}

export const NO_FAULTS: Faults = { latencyMs: 0, jitterMs: 0, errorRate: 0, timeoutRate: 0, outage: false };

export interface SimulatorOptions {
  world: WorldOptions & { asOf: Date };
  rates?: Partial<EvolutionRates>;
  /** Simulated seconds per wall-clock second; 0 = time moves only when advanced. Default 1. */
  speed?: number;
  /** Simulated time at start; default the world's asOf. */
  startAt?: Date;
  faults?: Partial<Faults>;
  /** Wall clock (tests may pass their own). */
  clock?: () => number;
}

export type SimulatorAnswer<T> =
  | { kind: 'ok'; body: T }
  | { kind: 'not_found' }
  | { kind: 'error'; status: number; message: string }
  /** The call never answers (until `signal` aborts or the simulator stops). */
  | { kind: 'hang' };

export interface SimulatorStats {
  /** Protocol calls received, by operation. */
  calls: { person: number; company: number; persons: number; companies: number };
  /** Records asked for (a batch counts each of its slugs). */
  records: number;
}

// Unref'd: the listening server keeps a running simulator alive; an injected latency (minutes, in
// the fault tests) must not keep a process alive after its simulator was closed.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class Simulator {
  readonly world: World;
  readonly evolution: Evolution;
  faults: Faults;
  speed: number;
  readonly stats: SimulatorStats = { calls: { person: 0, company: 0, persons: 0, companies: 0 }, records: 0 };
  private readonly wall: () => number;
  private baseSim: number;
  private baseWall: number;

  constructor(opts: SimulatorOptions) {
    this.world = createWorld(opts.world);
    this.evolution = new Evolution(this.world, { ...DEFAULT_RATES, ...opts.rates });
    this.faults = { ...NO_FAULTS, ...opts.faults };
    this.speed = opts.speed ?? 1;
    this.wall = opts.clock ?? Date.now;
    this.baseSim = (opts.startAt ?? opts.world.asOf).getTime();
    this.baseWall = this.wall();
  }

  /** Simulated now, in ms since the epoch. */
  now(): number {
    return this.baseSim + (this.wall() - this.baseWall) * this.speed;
  }

  /** Moves simulated time forward by `seconds` (never backwards). */
  advance(seconds: number): number {
    this.baseSim = this.now() + Math.max(0, seconds) * 1000;
    this.baseWall = this.wall();
    return this.baseSim;
  }

  setSpeed(speed: number): void {
    this.baseSim = this.now();
    this.baseWall = this.wall();
    this.speed = Math.max(0, speed);
  }

  setFaults(faults: Partial<Faults>): Faults {
    this.faults = { ...this.faults, ...faults };
    return this.faults;
  }

  // Records at the current simulated time ----------------------------------------------------

  person(username: string): PersonResult | null {
    const key = username.trim().toLowerCase();
    const index = this.world.personIndexOf(key, false);
    if (index === undefined) return null;
    const base = this.world.person(index);
    if (base.username !== key) return null;
    const at = this.now();
    const record = this.evolution.evolvePerson(base, index, at);
    record.fetched_at = isoSeconds(at);
    return record;
  }

  company(ref: { username: string } | { companyId: string }): CompanyResult | null {
    const index = this.world.companyIndexOf('username' in ref ? { username: ref.username.trim().toLowerCase() } : ref);
    if (index === undefined) return null;
    const at = this.now();
    const record = this.evolution.companyAt(index, at);
    record.fetched_at = isoSeconds(at);
    return record;
  }

  // The protocol, with faults ---------------------------------------------------------------

  /** Applies latency and failure injection, then answers with `produce`. */
  async answer<T>(operation: keyof SimulatorStats['calls'], records: number, produce: () => T | null): Promise<SimulatorAnswer<T>> {
    this.stats.calls[operation] += 1;
    this.stats.records += records;
    const f = this.faults;
    const delay = f.latencyMs + (f.jitterMs > 0 ? Math.random() * f.jitterMs : 0);
    if (delay > 0) await sleep(delay);
    if (f.outage) return { kind: 'error', status: 503, message: 'simulated outage' };
    if (f.timeoutRate > 0 && Math.random() < f.timeoutRate) return { kind: 'hang' };
    if (f.errorRate > 0 && Math.random() < f.errorRate) return { kind: 'error', status: 500, message: 'simulated error' };
    const body = produce();
    return body === null ? { kind: 'not_found' } : { kind: 'ok', body };
  }

  /** What `GET /control/state` shows. */
  state() {
    return {
      sim_time: new Date(this.now()).toISOString(),
      speed: this.speed,
      world: {
        persons: this.world.persons,
        companies: this.world.companies,
        seed: this.world.seed,
        as_of: this.world.asOf.toISOString(),
      },
      rates_per_day: this.evolution.rates,
      faults: {
        latency_ms: this.faults.latencyMs,
        jitter_ms: this.faults.jitterMs,
        error_rate: this.faults.errorRate,
        timeout_rate: this.faults.timeoutRate,
        outage: this.faults.outage,
      },
      stats: this.stats,
    };
  }
}
