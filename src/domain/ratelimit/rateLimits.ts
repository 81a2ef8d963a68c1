/**
 * Request limits per window, counted in memory (one instance) or by rate-limiter-flexible in Redis
 * (several instances share one count), as **sliding windows**.
 *
 * Why sliding: a fixed window admits up to twice the limit across a boundary (the limit at the end
 * of one window, the limit again at the start of the next: 40 requests in about a second for a
 * limit of 20). The sliding-window counter (as Cloudflare and Upstash use it) keeps one counter per
 * aligned window and counts, at a point `f` (0..1) into the current window,
 *
 *     used = current + previous × (1 − f)
 *
 * so the previous window's requests weigh less the further the current one is advanced. A
 * request is admitted when `used` stays within the limit. After a full burst, admissions resume at
 * the steady rate limit/window instead of all at once, so any span of t seconds admits at most
 * about limit × (1 + t / window) requests (a fixed window: 2 × limit for any t > 0).
 * rate-limiter-flexible provides the atomic counters in Redis (INCR with expiry); in memory they are
 * plain maps counted synchronously (MemoryWindows below: no promise per request without Redis). The
 * windows are aligned to the clock (window index = floor(now / window)), so every instance
 * counts into the same keys.
 *
 * Each scope (workspace, member, anonymous address, failed authentications) has one counter store
 * whose own ceiling is effectively infinite; the limit is compared here with the count the store
 * returns. That lets every workspace and member have its own limit (changed at any time) without a
 * limiter per value. A refused request gives its point back, so refusals never count.
 *
 * The two windows of a member are applied in sequence, not with RateLimiterUnion (which cannot roll
 * back): member first, so a request the member window refuses never touches the workspace window;
 * a request the workspace then refuses gives its member point back.
 *
 * An admitted request the server then fails to answer (5xx: the database or the live source down
 * or too slow, a fault) gives its points back too (`giveBack`, called by the edge with the final
 * status): its 503 tells the client to retry after `Retry-After`, and that retry must not find the
 * window used up by the server's own failures. (Under load, a burst of 503s from a starved
 * database pool used up a workspace's window while it got half its 200s: issue 32.)
 *
 * With Redis, a command that fails or outlasts the client's command timeout opens a breaker
 * (sharedStore.ts): every instance then limits in its own memory until Redis answers again.
 */
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { SharedStore, type SharedStoreState } from './sharedStore';

export interface WindowState {
  limit: number;
  remaining: number;
  resetAt: Date;
}

export interface QuotaState {
  workspace: WindowState;
  member?: WindowState;
}

export interface Decision {
  allowed: boolean;
  quotas: QuotaState;
  /** An admitted request's points (its windows and their keys), for `giveBack`. */
  granted?: Grant;
  /** Which window refused the request, and seconds until it admits one again (>= 1). */
  refusedBy?: 'workspace' | 'member';
  retryAfterSeconds?: number;
}

export interface PrincipalLimits {
  workspaceId: string;
  workspaceLimit: number;
  accountId: string;
  memberAllowance: number | null;
}

export type RateLimitStoreState = SharedStoreState | 'not_configured';

/** The points an admitted request took: one per window (scope, key, aligned window index). */
export interface Grant {
  readonly points: readonly { scope: Scope; id: string; index: number }[];
}

/**
 * A value, or the promise of one. The in-memory windows answer synchronously (no promise, no
 * microtask per request when Redis is not configured or not usable); Redis answers later. Callers
 * `await` either.
 */
export type MaybePromise<T> = T | Promise<T>;

/** f applied to v: at once for a value, after it for a promise. */
function chain<T, U>(v: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

const UNBOUNDED = 2_000_000_000;

export type Scope = 'ws' | 'member' | 'anon' | 'authfail';

/**
 * This instance's windows: one map of counts per aligned window index, the current and the
 * previous one kept, older ones dropped as soon as a later window is counted in. No timer per key
 * (rate-limiter-flexible's memory store kept one), no promise.
 */
class MemoryWindows {
  private readonly windows = new Map<number, Map<string, number>>();
  private newest = -Infinity;

  add(id: string, index: number, points: number): number {
    const counts = this.window(index, true)!;
    const n = (counts.get(id) ?? 0) + points;
    counts.set(id, n);
    return n;
  }

  get(id: string, index: number): number {
    return this.window(index, false)?.get(id) ?? 0;
  }

  clear(): void {
    this.windows.clear();
    this.newest = -Infinity;
  }

  private window(index: number, create: boolean): Map<string, number> | undefined {
    if (index > this.newest) {
      this.newest = index;
      for (const old of this.windows.keys()) if (old < index - 1) this.windows.delete(old);
    }
    let counts = this.windows.get(index);
    if (!counts && create) {
      counts = new Map();
      this.windows.set(index, counts);
    }
    return counts;
  }
}

/** One scope's counters: Redis while the shared store is usable, this instance's memory otherwise. */
class Counters {
  private readonly memory = new MemoryWindows();

  constructor(
    private readonly redis: RateLimiterAbstract | undefined,
    private readonly shared: SharedStore | undefined,
  ) {}

  /** Drops every in-memory window. */
  forget(): void {
    this.memory.clear();
  }

  /** The count of the window after adding one request to it. */
  consume(id: string, index: number): MaybePromise<number> {
    if (this.redis && this.shared!.usable()) {
      return this.redis.consume(`${id}:${index}`, 1).then(
        (res) => res.consumedPoints,
        (err) => this.failed(err, () => this.memory.add(id, index, 1)),
      );
    }
    return this.memory.add(id, index, 1);
  }

  get(id: string, index: number): MaybePromise<number> {
    if (this.redis && this.shared!.usable()) {
      return this.redis.get(`${id}:${index}`).then(
        (res) => res?.consumedPoints ?? 0,
        (err) => this.failed(err, () => this.memory.get(id, index)),
      );
    }
    return this.memory.get(id, index);
  }

  reward(id: string, index: number): MaybePromise<void> {
    if (this.redis && this.shared!.usable()) {
      return this.redis.reward(`${id}:${index}`, 1).then(
        () => undefined,
        (err) => {
          this.failed(err, () => this.memory.add(id, index, -1));
        },
      );
    }
    this.memory.add(id, index, -1);
  }

  /**
   * rate-limiter-flexible rejects with a RateLimiterRes only when its own points run out, which
   * UNBOUNDED never does; anything else is the store failing: the breaker opens and this
   * operation is counted in memory.
   */
  private failed(err: unknown, inMemory: () => number): number {
    if (err instanceof RateLimiterRes) return err.consumedPoints;
    this.shared!.failed(err);
    return inMemory();
  }
}

interface Count {
  /** Requests counted in the current and the previous aligned window. */
  current: number;
  previous: number;
  /** How far into the current window `now` is, 0..1. */
  fraction: number;
  windowStart: number;
}

interface Taken {
  allowed: boolean;
  window: WindowState;
  retryAfterMs: number;
}

export class RateLimits {
  readonly windowSeconds: number;
  private readonly windowMs: number;
  private readonly counters: Record<Scope, Counters>;
  private readonly shared: SharedStore | undefined;
  private readonly now: () => number;

  constructor(opts: {
    windowSeconds: number;
    redis?: Redis;
    keyPrefix?: string;
    /** The clock (tests move it); defaults to Date.now. */
    now?: () => number;
    onStoreChange?: (state: SharedStoreState, err?: unknown) => void;
  }) {
    this.windowSeconds = opts.windowSeconds;
    this.windowMs = opts.windowSeconds * 1000;
    this.now = opts.now ?? Date.now;
    this.shared = opts.redis ? new SharedStore(opts.redis, opts.onStoreChange) : undefined;
    const prefix = opts.keyPrefix ?? 'enrich:rl2';
    // A key lives two windows, so the previous window's count is still there during the current one.
    const make = (scope: Scope): Counters => {
      const redis = opts.redis
        ? new RateLimiterRedis({
            points: UNBOUNDED,
            duration: 2 * opts.windowSeconds,
            keyPrefix: `${prefix}:${scope}`,
            storeClient: opts.redis,
            rejectIfRedisNotReady: true,
          })
        : undefined;
      return new Counters(redis, this.shared);
    };
    this.counters = { ws: make('ws'), member: make('member'), anon: make('anon'), authfail: make('authfail') };
  }

  /** Where the windows are counted right now. */
  get store(): 'memory' | 'redis' {
    return this.shared ? 'redis' : 'memory';
  }

  storeState(): RateLimitStoreState {
    return this.shared ? this.shared.state : 'not_configured';
  }

  consume(p: PrincipalLimits): MaybePromise<Decision> {
    const now = this.now();
    if (p.memberAllowance === null) return chain(this.take('ws', p.workspaceId, p.workspaceLimit, now), (w) => this.afterWorkspace(p, w, undefined, now));
    return chain(this.take('member', p.accountId, p.memberAllowance, now), (m) =>
      m.allowed
        ? chain(this.take('ws', p.workspaceId, p.workspaceLimit, now), (w) => this.afterWorkspace(p, w, m.window, now))
        : chain(this.count('ws', p.workspaceId, now), (c) =>
            this.refuse({ workspace: this.window(p.workspaceLimit, c, now), member: m.window }, 'member', m.retryAfterMs),
          ),
    );
  }

  /** The workspace window's verdict; a refusal gives the member's point back. */
  private afterWorkspace(p: PrincipalLimits, w: Taken, member: WindowState | undefined, now: number): MaybePromise<Decision> {
    if (w.allowed) {
      const index = this.index(now);
      const ws = { scope: 'ws' as const, id: p.workspaceId, index };
      return member
        ? { allowed: true, quotas: { workspace: w.window, member }, granted: { points: [{ scope: 'member', id: p.accountId, index }, ws] } }
        : { allowed: true, quotas: { workspace: w.window }, granted: { points: [ws] } };
    }
    if (!member) return this.refuse({ workspace: w.window }, 'workspace', w.retryAfterMs);
    const restored = { ...member, remaining: Math.min(member.limit, member.remaining + 1) };
    return chain(this.counters.member.reward(p.accountId, this.index(now)), () =>
      this.refuse({ workspace: w.window, member: restored }, 'workspace', w.retryAfterMs),
    );
  }

  /** Forgets the in-memory windows (nothing is scheduled for them) and stops the Redis probe. */
  async close(): Promise<void> {
    this.shared?.close();
    for (const counters of Object.values(this.counters)) counters.forget();
  }

  /** The current windows, without counting a request (401/402 answers, which consume nothing). */
  peek(p: PrincipalLimits): MaybePromise<QuotaState> {
    const now = this.now();
    return chain(this.count('ws', p.workspaceId, now), (ws) => {
      const workspace = this.window(p.workspaceLimit, ws, now);
      if (p.memberAllowance === null) return { workspace };
      const allowance = p.memberAllowance;
      return chain(this.count('member', p.accountId, now), (m) => ({ workspace, member: this.window(allowance, m, now) }));
    });
  }

  /** Unauthenticated traffic (GET /health) is limited per client address. */
  consumeAnonymous(address: string, limit: number): MaybePromise<Decision> {
    const now = this.now();
    return chain(this.take('anon', address, limit, now), (a) =>
      a.allowed
        ? { allowed: true, quotas: { workspace: a.window }, granted: { points: [{ scope: 'anon', id: address, index: this.index(now) }] } }
        : this.refuse({ workspace: a.window }, 'workspace', a.retryAfterMs),
    );
  }

  /**
   * Gives an admitted request's points back (the server failed to answer it: 5xx). Each point goes
   * back to the window it was taken from; a store that fails meanwhile opens the breaker as any
   * other command does, and the point is given back in memory.
   */
  giveBack(grant: Grant): MaybePromise<void> {
    let pending: Promise<void> | undefined;
    for (const { scope, id, index } of grant.points) {
      const done = this.counters[scope].reward(id, index);
      if (done instanceof Promise) pending = pending ? pending.then(() => done) : done;
    }
    return pending;
  }

  peekAnonymous(address: string, limit: number): MaybePromise<QuotaState> {
    const now = this.now();
    return chain(this.count('anon', address, now), (c) => ({ workspace: this.window(limit, c, now) }));
  }

  /**
   * Failed authentications per client address. `authFailuresLeft` reads the budget without
   * counting (valid keys never spend it; concurrent guesses may overshoot it by their number in
   * flight, which the connection cap bounds); `recordAuthFailure` counts one.
   */
  authFailureBudget(address: string, limit: number): MaybePromise<Decision> {
    const now = this.now();
    return chain(this.count('authfail', address, now), (count) => {
      if (used(count) + 1 <= limit) return { allowed: true, quotas: { workspace: this.window(limit, count, now) } };
      const waitMs = this.msUntilAdmitted(limit, count, now);
      return this.refuse({ workspace: this.refusedWindow(limit, count, now, waitMs) }, 'workspace', waitMs);
    });
  }

  async recordAuthFailure(address: string): Promise<void> {
    await this.counters.authfail.consume(address, this.index(this.now()));
  }

  private index(now: number): number {
    return Math.floor(now / this.windowMs);
  }

  private count(scope: Scope, id: string, now: number): MaybePromise<Count> {
    const index = this.index(now);
    const current = this.counters[scope].get(id, index);
    const previous = this.counters[scope].get(id, index - 1);
    if (current instanceof Promise || previous instanceof Promise) {
      return Promise.all([current, previous]).then(([c, p]) => this.countAt(c, p, index, now));
    }
    return this.countAt(current, previous, index, now);
  }

  private countAt(current: number, previous: number, index: number, now: number): Count {
    const windowStart = index * this.windowMs;
    return { current, previous, fraction: (now - windowStart) / this.windowMs, windowStart };
  }

  /** Counts one request, and gives it back when it does not fit. */
  private take(scope: Scope, id: string, limit: number, now: number): MaybePromise<Taken> {
    const index = this.index(now);
    const current = this.counters[scope].consume(id, index);
    const previous = this.counters[scope].get(id, index - 1);
    if (current instanceof Promise || previous instanceof Promise) {
      return Promise.all([current, previous]).then(([c, p]) => this.decide(scope, id, limit, this.countAt(c, p, index, now), now));
    }
    return this.decide(scope, id, limit, this.countAt(current, previous, index, now), now);
  }

  private decide(scope: Scope, id: string, limit: number, count: Count, now: number): MaybePromise<Taken> {
    if (used(count) <= limit) return { allowed: true, window: this.window(limit, count, now), retryAfterMs: 0 };
    const without = { ...count, current: count.current - 1 };
    const waitMs = this.msUntilAdmitted(limit, without, now);
    return chain(this.counters[scope].reward(id, this.index(now)), () => ({
      allowed: false,
      window: this.refusedWindow(limit, without, now, waitMs),
      retryAfterMs: waitMs,
    }));
  }

  /**
   * The window of a refusal: its `reset_at` is the instant the next request will be admitted (the
   * same instant Retry-After and the RateLimit header's `t` round up to), not the end of the
   * aligned window, which in a sliding window can come well before that instant.
   */
  private refusedWindow(limit: number, count: Count, now: number, waitMs: number): WindowState {
    return { ...this.window(limit, count, now), resetAt: new Date(now + waitMs) };
  }

  /**
   * `remaining` is what fits now; `reset_at` is the end of the current window, from which the
   * current count starts to weigh less (with an idle previous window, the whole count). A refused
   * request's window says instead when the next one fits (refusedWindow).
   */
  private window(limit: number, count: Count, now: number): WindowState {
    const resetAt = new Date(Math.max(count.windowStart + this.windowMs, now + 1));
    return { limit, remaining: Math.max(0, Math.floor(limit - used(count))), resetAt };
  }

  /** When one more request fits, given the counts without it. */
  private msUntilAdmitted(limit: number, c: Count, now: number): number {
    const W = this.windowMs;
    let at: number;
    if (c.current + 1 <= limit) {
      // Within this window, once the previous one weighs little enough: previous × (1 − f) ≤ limit − current − 1.
      const f = c.previous > 0 ? 1 - (limit - c.current - 1) / c.previous : 0;
      at = c.windowStart + Math.max(f, c.fraction) * W;
    } else {
      // In the next window, where this window's count becomes the previous one.
      const f = c.current > 0 ? Math.max(0, 1 - (limit - 1) / c.current) : 0;
      at = c.windowStart + W + f * W;
    }
    // Rounded up to a whole millisecond: at that instant the request fits (`reset_at` is a promise
    // a client may act on to the millisecond).
    return Math.max(1, Math.ceil(at) - now);
  }

  private refuse(quotas: QuotaState, refusedBy: 'workspace' | 'member', retryAfterMs: number): Decision {
    return { allowed: false, quotas, refusedBy, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
  }
}

function used(c: Count): number {
  return c.current + c.previous * (1 - c.fraction);
}
