/**
 * Counts authenticated requests per workspace, UTC day and status class (2xx, 3xx, 4xx, 5xx, and
 * 429 apart) in memory, and the last use of each key, and writes both in one batch every
 * `flushMs` (two statements per batch, whatever the traffic): a request never costs a database
 * write. What a crash can lose is the batch not yet written: at most `flushMs` of counts (5 s by
 * default) and of last-use times. A batch whose write fails is kept and added to the next one
 * (bounded: past `maxPending` distinct entries the oldest batch is dropped and logged).
 */
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { addRequestCounts, setKeysLastUsed, type CountRow } from '../db/repositories/requestCounts';
import type { Logger } from '../logger';
import type { AppContext, RequestState } from './state';

export const DEFAULT_FLUSH_MS = 5000;
const MAX_PENDING = 100_000;
const DAY_MS = 86_400_000;

function statusClass(status: number): CountRow['status_class'] {
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

export class RequestCounter {
  private counts = new Map<string, number>();
  /** Key id -> last use, in ms since the epoch. */
  private lastUsed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** The UTC day of the last request and the span of time it covers (formatted once a day, not per request). */
  private day = { text: '', from: 0, to: 0 };

  constructor(
    private readonly db: Knex,
    private readonly opts: { flushMs?: number; logger?: Logger } = {},
  ) {
    const every = opts.flushMs ?? DEFAULT_FLUSH_MS;
    if (every > 0) {
      this.timer = setInterval(() => void this.flush(), every);
      this.timer.unref();
    }
  }

  /** Counts an answered request of an authenticated caller (with its final status). */
  countAnswer(ctx: AppContext): void {
    const p = ctx.state.principal;
    if (p) this.count(p.workspaceId, p.keyId, ctx.status, Date.now());
  }

  middleware(): Middleware<RequestState> {
    return async (ctx, next) => {
      try {
        await next();
      } finally {
        this.countAnswer(ctx);
      }
    };
  }

  record(workspaceId: string, keyId: string, status: number, at = new Date()): void {
    this.count(workspaceId, keyId, status, at.getTime());
  }

  private count(workspaceId: string, keyId: string, status: number, t: number): void {
    const key = `${workspaceId}|${this.dayOf(t)}|${statusClass(status)}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (keyId) this.lastUsed.set(keyId, t);
  }

  private dayOf(t: number): string {
    if (t < this.day.from || t >= this.day.to) {
      const from = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
      this.day = { text: new Date(t).toISOString().slice(0, 10), from, to: from + DAY_MS };
    }
    return this.day.text;
  }

  /** Writes what was counted so far; concurrent calls run one after the other. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.counts.size && !this.lastUsed.size) return;
    const counts = this.counts;
    const lastUsed = this.lastUsed;
    this.counts = new Map();
    this.lastUsed = new Map();
    const rows: CountRow[] = [...counts].map(([k, count]) => {
      const [workspace_id, day, status_class] = k.split('|');
      return { workspace_id, day, status_class: status_class as CountRow['status_class'], count };
    });
    try {
      await this.db.transaction(async (trx) => {
        await addRequestCounts(trx, rows);
        await setKeysLastUsed(trx, [...lastUsed].map(([key_id, at]) => ({ key_id, at: new Date(at) })));
      });
    } catch (err) {
      // Keep the batch for the next flush, unless too much is pending already.
      if (this.counts.size + counts.size > MAX_PENDING) {
        this.opts.logger?.warn({ err: (err as Error).message, dropped: counts.size }, 'request counts: write failed and too much is pending; batch dropped');
        return;
      }
      for (const [k, n] of counts) this.counts.set(k, (this.counts.get(k) ?? 0) + n);
      for (const [k, at] of lastUsed) if (!this.lastUsed.has(k)) this.lastUsed.set(k, at);
      this.opts.logger?.warn({ err: (err as Error).message }, 'request counts: write failed; kept for the next batch');
    }
  }

  /** Distinct entries counted and not written yet (counts and last-use times). */
  pendingEntries(): number {
    return this.counts.size + this.lastUsed.size;
  }

  /** Stops the timer and writes the last batch. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
