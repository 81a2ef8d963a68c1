/**
 * In-process coalescing: concurrent calls with the same key share one execution. The first caller
 * runs `fn`; the others get the same result (or error). Across instances, the realtime rule adds
 * a lease row (db/repositories/realtimeFetchLeases.ts).
 */
export class Coalescer {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key) as Promise<T> | undefined;
    if (existing) return existing;
    const promise = fn().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  get size(): number {
    return this.inFlight.size;
  }
}
