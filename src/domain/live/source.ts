/**
 * The live source: where fresh person and company records come from (openapi/live-source/ is its
 * protocol). Realtime calls fetch one record; the background refresh fetches batches. An adapter
 * never throws for a failure of the source: it answers `unavailable` with a reason, so every
 * caller handles the three outcomes explicitly.
 */
import type { CompanyRecord, PersonRecord } from '../../model/records';

/**
 * Why the source could not answer, as a value (callers choose their answer by it, never by the
 * reason's wording): `deadline` it did not answer in time; `circuit_open` it failed repeatedly and
 * calls are paused; `busy` LIVE_SOURCE_CONCURRENCY calls are in flight and LIVE_SOURCE_QUEUE wait
 * (refused at once); `failed` it answered with an error or could not be reached; `none` no source
 * is configured.
 */
export type UnavailableCause = 'deadline' | 'circuit_open' | 'busy' | 'failed' | 'none';

/** The source could not answer: the cause, and a reason for the log. */
export type Unavailable = { status: 'unavailable'; cause: UnavailableCause; reason: string };

export type LiveResult<R> = { status: 'found'; record: R } | { status: 'not_found' } | Unavailable;

/** A company is addressed by slug or by numeric company ID. */
export type CompanyRef = { username: string } | { companyId: string };

/** A batch answer: one entry per requested slug, in order (null = the source does not know it). */
export type LiveBatch<R> = { status: 'ok'; records: (R | null)[] } | Unavailable;

export interface LiveSource {
  /** What the log and /metrics call it (`http`, `simulator`, `none`). */
  readonly name: string;
  person(username: string): Promise<LiveResult<PersonRecord>>;
  company(ref: CompanyRef): Promise<LiveResult<CompanyRecord>>;
  persons(usernames: readonly string[]): Promise<LiveBatch<PersonRecord>>;
  companies(usernames: readonly string[]): Promise<LiveBatch<CompanyRecord>>;
  close(): Promise<void>;
}

/** Largest batch the protocol accepts (openapi/live-source/live-source.yaml). */
export const MAX_LOOKUP_BATCH = 100;

/**
 * The source of a server configured with neither LIVE_SOURCE_URL nor LIVE_SOURCE=simulator: every
 * call is unavailable, so realtime answers 503 and the refresh idles. A production server never
 * serves invented data by default.
 */
export class NoLiveSource implements LiveSource {
  readonly name = 'none';
  private readonly reason = 'no live source is configured (set LIVE_SOURCE_URL, or LIVE_SOURCE=simulator for development)';
  async person(): Promise<LiveResult<PersonRecord>> {
    return { status: 'unavailable', cause: 'none', reason: this.reason };
  }
  async company(): Promise<LiveResult<CompanyRecord>> {
    return { status: 'unavailable', cause: 'none', reason: this.reason };
  }
  async persons(): Promise<LiveBatch<PersonRecord>> {
    return { status: 'unavailable', cause: 'none', reason: this.reason };
  }
  async companies(): Promise<LiveBatch<CompanyRecord>> {
    return { status: 'unavailable', cause: 'none', reason: this.reason };
  }
  async close(): Promise<void> {}
}
