/**
 * Every call to the live source goes through one policy (cockatiel): a deadline, a circuit breaker
 * and a concurrency cap, outermost first.
 *
 * - Deadline (aggressive timeout): the caller has its answer by then, whatever the source does;
 *   the call itself is aborted through its AbortSignal. It covers the wait for a concurrency slot.
 * - Circuit breaker: after `breakerThreshold` consecutive failures every call fails at once for
 *   `breakerCooldownMs`, then one call probes the source; success closes the circuit.
 * - Bulkhead: at most `concurrency` calls in flight, `queue` more waiting; beyond that a call fails
 *   at once (and does not count against the breaker: the source did nothing wrong).
 *
 * The raw adapter underneath throws on failure; here every failure becomes an `unavailable`
 * answer with a reason, so no caller sees an exception from the source.
 */
import {
  BulkheadRejectedError,
  ConsecutiveBreaker,
  CircuitState,
  TimeoutStrategy,
  bulkhead,
  circuitBreaker,
  handleWhen,
  isBrokenCircuitError,
  isTaskCancelledError,
  timeout,
  wrap,
  type IPolicy,
} from 'cockatiel';
import type { CompanyRecord, PersonRecord } from '../../model/records';
import type { CompanyRef, LiveBatch, LiveResult, LiveSource, Unavailable } from './source';

/** A raw adapter: answers found / not found, throws on any failure; honours the signal. */
export interface RawLiveSource {
  readonly name: string;
  person(username: string, signal: AbortSignal): Promise<PersonRecord | null>;
  company(ref: CompanyRef, signal: AbortSignal): Promise<CompanyRecord | null>;
  persons(usernames: readonly string[], signal: AbortSignal): Promise<(PersonRecord | null)[]>;
  companies(usernames: readonly string[], signal: AbortSignal): Promise<(CompanyRecord | null)[]>;
  close(): Promise<void>;
}

/**
 * The live-source settings, declared once: config.ts reads them from LIVE_SOURCE_* (the README's
 * configuration table documents them) into this shape, and src/live.ts hands them here unchanged.
 */
export interface LiveSourceSettings {
  /** LIVE_SOURCE_TIMEOUT_MS: deadline of a single-record call (realtime). */
  timeoutMs: number;
  /** LIVE_SOURCE_BATCH_TIMEOUT_MS: deadline of a batch call (refresh). */
  batchTimeoutMs: number;
  /** LIVE_SOURCE_CONCURRENCY: calls in flight to the source per process. */
  concurrency: number;
  /** LIVE_SOURCE_QUEUE: calls waiting for a slot; beyond, a call is refused at once (`busy`). */
  queue: number;
  /** LIVE_SOURCE_BREAKER_THRESHOLD: consecutive failures that open the circuit. */
  breakerThreshold: number;
  /** LIVE_SOURCE_BREAKER_COOLDOWN_MS: how long an open circuit refuses calls before one probe. */
  breakerCooldownMs: number;
}

/** The policy's options are the settings themselves. */
export type ResilienceOptions = LiveSourceSettings;

export type SourceOperation = 'person' | 'company' | 'persons' | 'companies';
export type SourceOutcome = 'found' | 'not_found' | 'ok' | 'unavailable';
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Where call figures go (/metrics); the domain knows no metrics library. */
export interface SourceObserver {
  /** `failure` is the unavailable answer (its cause is the metric's label, its reason the log's). */
  call(operation: SourceOperation, outcome: SourceOutcome, seconds: number, failure?: Unavailable): void;
  breaker(state: BreakerState): void;
}

const BREAKER_STATES: Partial<Record<CircuitState, BreakerState>> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Isolated]: 'open',
};

/**
 * The cause of a failed call, and a reason for the log. `timedOut`: the call's signal was already
 * aborted when the raw call settled (see `settledAborted`), which only the deadline does.
 */
function unavailable(err: unknown, opts: ResilienceOptions, batch: boolean, timedOut: boolean): Unavailable {
  if (isBrokenCircuitError(err)) {
    return { status: 'unavailable', cause: 'circuit_open', reason: 'circuit open: the live source failed repeatedly, calls are paused' };
  }
  // First: cockatiel's BulkheadRejectedError is also a TaskCancelledError.
  if (err instanceof BulkheadRejectedError) {
    return {
      status: 'unavailable',
      cause: 'busy',
      reason: `too many live-source calls: ${opts.concurrency} in flight and ${opts.queue} waiting (LIVE_SOURCE_CONCURRENCY, LIVE_SOURCE_QUEUE)`,
    };
  }
  // The deadline aborts the call's signal: whichever error surfaces first (cockatiel's or the
  // adapter's abort error), it was the deadline.
  if (isTaskCancelledError(err) || timedOut) {
    return { status: 'unavailable', cause: 'deadline', reason: `the live source did not answer within ${batch ? opts.batchTimeoutMs : opts.timeoutMs} ms` };
  }
  return { status: 'unavailable', cause: 'failed', reason: err instanceof Error ? err.message : String(err) };
}

/**
 * Runs the raw call and notes whether its signal was aborted when it settled. cockatiel's timeout
 * aborts the signal on the way out of every call (abortOnReturn), so reading `signal.aborted` after
 * `execute` returns says nothing: a refused connection or an immediate 5xx would read as a deadline
 * (issue 32, row 9). Read at the moment the raw call settles, an aborted signal means the deadline
 * fired first.
 */
function settledAborted<R>(call: (signal: AbortSignal) => Promise<R>, noted: { aborted: boolean }) {
  return (ctx: { signal: AbortSignal }) =>
    call(ctx.signal).finally(() => {
      noted.aborted = ctx.signal.aborted;
    });
}

export class ResilientSource implements LiveSource {
  readonly name: string;
  private readonly single: IPolicy;
  private readonly batch: IPolicy;
  private readonly breakerPolicy;

  constructor(
    private readonly raw: RawLiveSource,
    private readonly opts: ResilienceOptions,
    private readonly observer?: SourceObserver,
  ) {
    this.name = raw.name;
    this.breakerPolicy = circuitBreaker(
      handleWhen((err) => !(err instanceof BulkheadRejectedError)),
      { halfOpenAfter: opts.breakerCooldownMs, breaker: new ConsecutiveBreaker(opts.breakerThreshold) },
    );
    this.breakerPolicy.onStateChange((state) => observer?.breaker(BREAKER_STATES[state] ?? 'open'));
    const cap = bulkhead(opts.concurrency, opts.queue);
    this.single = wrap(timeout(opts.timeoutMs, TimeoutStrategy.Aggressive), this.breakerPolicy, cap);
    this.batch = wrap(timeout(opts.batchTimeoutMs, TimeoutStrategy.Aggressive), this.breakerPolicy, cap);
  }

  get breakerState(): BreakerState {
    return BREAKER_STATES[this.breakerPolicy.state] ?? 'open';
  }

  private async one<R>(operation: SourceOperation, call: (signal: AbortSignal) => Promise<R | null>): Promise<LiveResult<R>> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const noted = { aborted: false };
    try {
      const record = await this.single.execute(settledAborted(call, noted));
      const result: LiveResult<R> = record === null ? { status: 'not_found' } : { status: 'found', record };
      this.observer?.call(operation, result.status as SourceOutcome, seconds());
      return result;
    } catch (err) {
      const failed = unavailable(err, this.opts, false, noted.aborted);
      this.observer?.call(operation, 'unavailable', seconds(), failed);
      return failed;
    }
  }

  private async many<R>(operation: SourceOperation, call: (signal: AbortSignal) => Promise<(R | null)[]>): Promise<LiveBatch<R>> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const noted = { aborted: false };
    try {
      const records = await this.batch.execute(settledAborted(call, noted));
      this.observer?.call(operation, 'ok', seconds());
      return { status: 'ok', records };
    } catch (err) {
      const failed = unavailable(err, this.opts, true, noted.aborted);
      this.observer?.call(operation, 'unavailable', seconds(), failed);
      return failed;
    }
  }

  person(username: string): Promise<LiveResult<PersonRecord>> {
    return this.one('person', (signal) => this.raw.person(username, signal));
  }

  company(ref: CompanyRef): Promise<LiveResult<CompanyRecord>> {
    return this.one('company', (signal) => this.raw.company(ref, signal));
  }

  persons(usernames: readonly string[]): Promise<LiveBatch<PersonRecord>> {
    return this.many('persons', async (signal) => {
      const records = await this.raw.persons(usernames, signal);
      if (records.length !== usernames.length) throw new Error('the live source answered a batch of the wrong length');
      return records;
    });
  }

  companies(usernames: readonly string[]): Promise<LiveBatch<CompanyRecord>> {
    return this.many('companies', async (signal) => {
      const records = await this.raw.companies(usernames, signal);
      if (records.length !== usernames.length) throw new Error('the live source answered a batch of the wrong length');
      return records;
    });
  }

  close(): Promise<void> {
    return this.raw.close();
  }
}
