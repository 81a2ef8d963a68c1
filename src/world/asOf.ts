/**
 * The world's default `asOf`, in a module of its own (world/index.ts re-exports it) so that a caller
 * needing only the date does not load the generator and faker's locales (~0.4 s a process).
 */

/** Today's date at 00:00 UTC. */
export function defaultAsOf(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}
