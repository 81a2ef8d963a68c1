/**
 * The health of the shared (Redis) rate-limit store, as a circuit breaker: while Redis answers,
 * limits are shared by every instance; the first command that fails or times out (ioredis'
 * `commandTimeout`) opens the breaker, and from then on every request is limited in this
 * instance's memory at once, without waiting on Redis again. A probe (PING, same timeout) runs
 * every PROBE_INTERVAL_MS; the first one that succeeds closes the breaker. State changes are
 * reported (and logged by the caller), so an operator sees both transitions.
 */
import type Redis from 'ioredis';

export type SharedStoreState = 'up' | 'unavailable';

const PROBE_INTERVAL_MS = 1000;

export class SharedStore {
  private healthy: boolean;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(
    readonly redis: Redis,
    private readonly onChange: (state: SharedStoreState, err?: unknown) => void = () => undefined,
  ) {
    this.healthy = redis.status === 'ready';
    if (!this.healthy) this.scheduleProbe();
    // A reconnect is the earliest moment Redis may be back: check at once.
    redis.on('ready', () => {
      if (!this.healthy) void this.probe();
    });
    // A lost connection: go to memory now rather than on the next request's failure.
    redis.on('close', () => this.failed(new Error('connection to Redis closed')));
  }

  get state(): SharedStoreState {
    return this.healthy ? 'up' : 'unavailable';
  }

  /** Whether requests should use Redis now. */
  usable(): boolean {
    return this.healthy && this.redis.status === 'ready';
  }

  /** A command failed or timed out: limit in memory until a probe succeeds. */
  failed(err: unknown): void {
    if (this.closed) return;
    if (this.healthy) {
      this.healthy = false;
      this.onChange('unavailable', err);
    }
    this.scheduleProbe();
  }

  close(): void {
    this.closed = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
  }

  private scheduleProbe(): void {
    if (this.closed || this.probeTimer || this.probing) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void this.probe();
    }, PROBE_INTERVAL_MS);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.closed || this.probing || this.healthy) return;
    this.probing = true;
    try {
      if (this.redis.status !== 'ready') throw new Error(`Redis connection is ${this.redis.status}`);
      await this.redis.ping();
      if (!this.closed && !this.healthy) {
        this.healthy = true;
        this.onChange('up');
      }
    } catch {
      // still down
    } finally {
      this.probing = false;
      if (!this.healthy) this.scheduleProbe();
    }
  }
}
