/**
 * Request limits per window, counted by rate-limiter-flexible in memory (one instance) or in Redis
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
 * rate-limiter-flexible provides the atomic counters (INCR with expiry in Redis, a Map in memory);
 * the windows are aligned to the clock (window index = floor(now / window)), so every instance
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
 * With Redis, a command that fails or outlasts the client's command timeout opens a breaker
 * (sharedStore.ts): every instance then limits in its own memory until Redis answers again.
 */
import type Redis from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
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

const UNBOUNDED = 2_000_000_000;

type Scope = 'ws' | 'member' | 'anon' | 'authfail';

/** One scope's counters: Redis while the shared store is usable, this instance's memory otherwise. */
class Counters {
  constructor(
    private readonly memory: RateLimiterMemory,
    private readonly redis: RateLimiterAbstract | undefined,
    private readonly shared: SharedStore | undefined,
  ) {}

  /** Drops every in-memory window (and its expiry timer). */
  async forget(): Promise<void> {
    for (const { key } of this.memory.dump().storage) await this.memory.delete(key);
  }

  consume(key: string): Promise<number> {
    return this.run((l) => l.consume(key, 1)).then((res) => res?.consumedPoints ?? 0);
  }

  get(key: string): Promise<number> {
    return this.run((l) => l.get(key)).then((res) => res?.consumedPoints ?? 0);
  }

  async reward(key: string): Promise<void> {
    await this.run((l) => l.reward(key, 1));
  }

  private async run(op: (limiter: RateLimiterAbstract) => Promise<RateLimiterRes | null>): Promise<RateLimiterRes | null> {
    if (this.redis && this.shared?.usable()) {
      try {
        return await op(this.redis);
      } catch (err) {
        // rate-limiter-flexible rejects with a RateLimiterRes only when its own points run out,
        // which UNBOUNDED never does; anything else is the store failing.
        if (err instanceof RateLimiterRes) return err;
        this.shared.failed(err);
      }
    }
    return op(this.memory);
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
      const base = { points: UNBOUNDED, duration: 2 * opts.windowSeconds, keyPrefix: `${prefix}:${scope}` };
      const memory = new RateLimiterMemory(base);
      const redis = opts.redis ? new RateLimiterRedis({ ...base, storeClient: opts.redis, rejectIfRedisNotReady: true }) : undefined;
      return new Counters(memory, redis, this.shared);
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

  async consume(p: PrincipalLimits): Promise<Decision> {
    const now = this.now();
    let member: WindowState | undefined;
    if (p.memberAllowance !== null) {
      const m = await this.take('member', p.accountId, p.memberAllowance, now);
      member = m.window;
      if (!m.allowed) {
        const workspace = this.window(p.workspaceLimit, await this.count('ws', p.workspaceId, now), now);
        return this.refuse({ workspace, member }, 'member', m.retryAfterMs);
      }
    }
    const w = await this.take('ws', p.workspaceId, p.workspaceLimit, now);
    if (!w.allowed) {
      if (member) {
        await this.counters.member.reward(this.key(p.accountId, now));
        member = { ...member, remaining: Math.min(member.limit, member.remaining + 1) };
      }
      return this.refuse({ workspace: w.window, member }, 'workspace', w.retryAfterMs);
    }
    return { allowed: true, quotas: member ? { workspace: w.window, member } : { workspace: w.window } };
  }

  /**
   * Forgets the in-memory windows. The memory store keeps a timer per key until its window ends
   * (unref'd, so it never holds the process open, but it keeps the store and everything it references
   * alive for up to a window after the app is gone): a closed app leaves nothing scheduled.
   */
  async close(): Promise<void> {
    this.shared?.close();
    for (const counters of Object.values(this.counters)) await counters.forget();
  }

  /** The current windows, without counting a request (401/402 answers, which consume nothing). */
  async peek(p: PrincipalLimits): Promise<QuotaState> {
    const now = this.now();
    const workspace = this.window(p.workspaceLimit, await this.count('ws', p.workspaceId, now), now);
    if (p.memberAllowance === null) return { workspace };
    return { workspace, member: this.window(p.memberAllowance, await this.count('member', p.accountId, now), now) };
  }

  /** Unauthenticated traffic (GET /health) is limited per client address. */
  async consumeAnonymous(address: string, limit: number): Promise<Decision> {
    const now = this.now();
    const a = await this.take('anon', address, limit, now);
    return a.allowed ? { allowed: true, quotas: { workspace: a.window } } : this.refuse({ workspace: a.window }, 'workspace', a.retryAfterMs);
  }

  async peekAnonymous(address: string, limit: number): Promise<QuotaState> {
    const now = this.now();
    return { workspace: this.window(limit, await this.count('anon', address, now), now) };
  }

  /**
   * Failed authentications per client address. `authFailuresLeft` reads the budget without
   * counting (valid keys never spend it; concurrent guesses may overshoot it by their number in
   * flight, which the connection cap bounds); `recordAuthFailure` counts one.
   */
  async authFailureBudget(address: string, limit: number): Promise<Decision> {
    const now = this.now();
    const count = await this.count('authfail', address, now);
    const window = this.window(limit, count, now);
    if (used(count) + 1 <= limit) return { allowed: true, quotas: { workspace: window } };
    return this.refuse({ workspace: window }, 'workspace', this.msUntilAdmitted(limit, count, now));
  }

  async recordAuthFailure(address: string): Promise<void> {
    await this.counters.authfail.consume(this.key(address, this.now()));
  }

  private key(id: string, now: number): string {
    return `${id}:${Math.floor(now / this.windowMs)}`;
  }

  private async count(scope: Scope, id: string, now: number): Promise<Count> {
    const index = Math.floor(now / this.windowMs);
    const [current, previous] = await Promise.all([
      this.counters[scope].get(`${id}:${index}`),
      this.counters[scope].get(`${id}:${index - 1}`),
    ]);
    return this.countAt(current, previous, index, now);
  }

  private countAt(current: number, previous: number, index: number, now: number): Count {
    const windowStart = index * this.windowMs;
    return { current, previous, fraction: (now - windowStart) / this.windowMs, windowStart };
  }

  /** Counts one request, and gives it back when it does not fit. */
  private async take(
    scope: Scope,
    id: string,
    limit: number,
    now: number,
  ): Promise<{ allowed: boolean; window: WindowState; retryAfterMs: number }> {
    const index = Math.floor(now / this.windowMs);
    const [current, previous] = await Promise.all([
      this.counters[scope].consume(`${id}:${index}`),
      this.counters[scope].get(`${id}:${index - 1}`),
    ]);
    const count = this.countAt(current, previous, index, now);
    if (used(count) <= limit) return { allowed: true, window: this.window(limit, count, now), retryAfterMs: 0 };
    await this.counters[scope].reward(`${id}:${index}`);
    const without = { ...count, current: count.current - 1 };
    return { allowed: false, window: this.window(limit, without, now), retryAfterMs: this.msUntilAdmitted(limit, without, now) };
  }

  /**
   * `remaining` is what fits now; `reset_at` is the end of the current window, from which the
   * current count starts to weigh less (with an idle previous window, the whole count).
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
    return Math.max(0, at - now);
  }

  private refuse(quotas: QuotaState, refusedBy: 'workspace' | 'member', retryAfterMs: number): Decision {
    return { allowed: false, quotas, refusedBy, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
  }
}

function used(c: Count): number {
  return c.current + c.previous * (1 - c.fraction);
}
