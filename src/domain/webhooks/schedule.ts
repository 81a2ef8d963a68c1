/**
 * When the next attempt of a delivery is due: the contract's retry schedule with ±20 % jitter,
 * Retry-After (429, 503) capped, and the attempts allowed in all.
 */

/** The contract's waits before retries 1..7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all). */
export const CONTRACT_SCHEDULE_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

export const JITTER = 0.2;

/** Attempts in all for a schedule of retry waits. */
export const attemptsFor = (schedule: readonly number[]) => schedule.length + 1;

/**
 * The wait before the next attempt, once `made` attempts have failed: the schedule's step, ±20 %
 * jitter so receivers are not hit by synchronized retries.
 */
export function retryDelaySeconds(schedule: readonly number[], made: number, random: () => number = Math.random): number {
  const base = schedule[Math.min(Math.max(made - 1, 0), schedule.length - 1)] ?? 0;
  return base * (1 + JITTER * (2 * random() - 1));
}

/**
 * Retry-After as seconds (delta-seconds or an HTTP date), capped at `capSeconds`; undefined when
 * absent or unreadable (the schedule applies then).
 */
export function retryAfterSeconds(header: string | string[] | undefined, capSeconds: number, now: number = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const text = value.trim();
  let seconds: number;
  if (/^[0-9]+$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.max(0, (at - now) / 1000);
  }
  return Math.min(seconds, capSeconds);
}
