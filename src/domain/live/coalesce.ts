/**
 * In-process coalescing: concurrent calls with the same key share one execution. The first caller
 * runs `fn`; the others get the same result (or error). Across instances, the realtime rule adds
 * an advisory lock (db/repositories/locks.ts).
 */
export class Coalescer {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  /** `leader` is true for the caller whose `fn` ran. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<{ value: T; leader: boolean }> {
    const existing = this.inFlight.get(key) as Promise<T> | undefined;
    if (existing) return { value: await existing, leader: false };
    const promise = fn().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return { value: await promise, leader: true };
  }

  get size(): number {
    return this.inFlight.size;
  }
}
