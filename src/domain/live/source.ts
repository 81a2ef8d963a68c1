/**
 * The live source: where fresh person and company records come from (openapi/live-source/ is its
 * protocol). Realtime calls fetch one record; the background refresh fetches batches. An adapter
 * never throws for a failure of the source: it answers `unavailable` with a reason, so every
 * caller handles the three outcomes explicitly.
 */
import type { CompanyRecord, PersonRecord } from '../../model/records';

export type LiveResult<R> =
  | { status: 'found'; record: R }
  | { status: 'not_found' }
  | { status: 'unavailable'; reason: string };

/** A company is addressed by slug or by numeric company ID. */
export type CompanyRef = { username: string } | { companyId: string };

/** A batch answer: one entry per requested slug, in order (null = the source does not know it). */
export type LiveBatch<R> = { status: 'ok'; records: (R | null)[] } | { status: 'unavailable'; reason: string };

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
    return { status: 'unavailable', reason: this.reason };
  }
  async company(): Promise<LiveResult<CompanyRecord>> {
    return { status: 'unavailable', reason: this.reason };
  }
  async persons(): Promise<LiveBatch<PersonRecord>> {
    return { status: 'unavailable', reason: this.reason };
  }
  async companies(): Promise<LiveBatch<CompanyRecord>> {
    return { status: 'unavailable', reason: this.reason };
  }
  async close(): Promise<void> {}
}
