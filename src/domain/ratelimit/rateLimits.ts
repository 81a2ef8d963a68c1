/**
 * Fixed-window request limits, backed by rate-limiter-flexible: in memory for one instance, in Redis
 * when several instances must share one window.
 *
 * Each scope (workspace, member, anonymous address) has one limiter whose own ceiling is effectively
 * infinite; the limit is compared here with the count the store returns. That lets every workspace
 * and member have its own limit (changed at any time, same window) without a limiter per value.
 *
 * The two windows of a member are applied in sequence, not with RateLimiterUnion (which cannot roll
 * back): member first, so a request the member window refuses never touches the workspace window;
 * a request the workspace then refuses gives its member point back.
 */
import type Redis from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';

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
  /** Which window refused the request, and seconds until it resets (>= 1). */
  refusedBy?: 'workspace' | 'member';
  retryAfterSeconds?: number;
}

export interface PrincipalLimits {
  workspaceId: string;
  workspaceLimit: number;
  accountId: string;
  memberAllowance: number | null;
}

const UNBOUNDED = 2_000_000_000;

export class RateLimits {
  readonly windowSeconds: number;
  readonly store: 'memory' | 'redis';
  private readonly workspace: RateLimiterAbstract;
  private readonly member: RateLimiterAbstract;
  private readonly anonymous: RateLimiterAbstract;

  constructor(opts: { windowSeconds: number; redis?: Redis; keyPrefix?: string }) {
    this.windowSeconds = opts.windowSeconds;
    this.store = opts.redis ? 'redis' : 'memory';
    const prefix = opts.keyPrefix ?? 'enrich:rl';
    const make = (scope: string): RateLimiterAbstract => {
      const base = { points: UNBOUNDED, duration: opts.windowSeconds, keyPrefix: `${prefix}:${scope}` };
      if (!opts.redis) return new RateLimiterMemory(base);
      return new RateLimiterRedis({
        ...base,
        storeClient: opts.redis,
        // If Redis is briefly unreachable each instance keeps limiting on its own instead of failing requests.
        insuranceLimiter: new RateLimiterMemory(base),
      });
    };
    this.workspace = make('ws');
    this.member = make('member');
    this.anonymous = make('anon');
  }

  async consume(p: PrincipalLimits): Promise<Decision> {
    const now = Date.now();
    let member: WindowState | undefined;
    if (p.memberAllowance !== null) {
      const res = await this.member.consume(p.accountId, 1);
      member = this.window(p.memberAllowance, res, now);
      if (res.consumedPoints > p.memberAllowance) {
        const workspace = this.window(p.workspaceLimit, await this.workspace.get(p.workspaceId), now);
        return this.refuse({ workspace, member }, 'member', res);
      }
    }
    const res = await this.workspace.consume(p.workspaceId, 1);
    const workspace = this.window(p.workspaceLimit, res, now);
    if (res.consumedPoints > p.workspaceLimit) {
      if (member) {
        await this.member.reward(p.accountId, 1);
        member = { ...member, remaining: Math.min(member.limit, member.remaining + 1) };
      }
      return this.refuse({ workspace, member }, 'workspace', res);
    }
    return { allowed: true, quotas: member ? { workspace, member } : { workspace } };
  }

  /** The current windows, without counting a request (401/402 answers, which consume nothing). */
  async peek(p: PrincipalLimits): Promise<QuotaState> {
    const now = Date.now();
    const workspace = this.window(p.workspaceLimit, await this.workspace.get(p.workspaceId), now);
    if (p.memberAllowance === null) return { workspace };
    return { workspace, member: this.window(p.memberAllowance, await this.member.get(p.accountId), now) };
  }

  /** Unauthenticated traffic (GET /health) is limited per client address. */
  async consumeAnonymous(address: string, limit: number): Promise<Decision> {
    const res = await this.anonymous.consume(address, 1);
    const workspace = this.window(limit, res, Date.now());
    if (res.consumedPoints > limit) return this.refuse({ workspace }, 'workspace', res);
    return { allowed: true, quotas: { workspace } };
  }

  async peekAnonymous(address: string, limit: number): Promise<QuotaState> {
    return { workspace: this.window(limit, await this.anonymous.get(address), Date.now()) };
  }

  private window(limit: number, res: RateLimiterRes | null, now: number): WindowState {
    const used = res?.consumedPoints ?? 0;
    const msLeft = res && res.msBeforeNext > 0 ? res.msBeforeNext : this.windowSeconds * 1000;
    return { limit, remaining: Math.max(0, limit - used), resetAt: new Date(now + msLeft) };
  }

  private refuse(quotas: QuotaState, refusedBy: 'workspace' | 'member', res: RateLimiterRes): Decision {
    return {
      allowed: false,
      quotas,
      refusedBy,
      retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}
