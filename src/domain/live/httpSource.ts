/**
 * The http adapter of the live source: the protocol of openapi/live-source/live-source.yaml over
 * undici (a keep-alive connection pool with connect, header and body timeouts of its own under the
 * policy's deadline). Raw: answers found / not found and throws on anything else, including a
 * record that is not valid against the contract's schema (nothing invalid is ever written).
 */
import type { Pool } from 'undici';
import { loadUndici } from '../undici';
import type { CompanyRecord, PersonRecord } from '../../model/records';
import type { RawLiveSource } from './resilience';
import type { CompanyRef } from './source';

/** undefined when valid, otherwise the reason (src/http/recordSchemas.ts provides these). */
export type RecordCheck = (value: unknown) => string | undefined;

export interface HttpSourceOptions {
  /** Base URL, ending before `/person` (for example http://127.0.0.1:4100/v1). */
  url: string;
  /** Sent as `<authHeader>: Bearer <token>` (or the raw token for another header name). */
  token?: string;
  authHeader?: string;
  /** Connections kept to the source (the concurrency cap of the policy is the real limit). */
  connections: number;
  /** Upper bound of one HTTP exchange; the policy's deadline is usually shorter. */
  timeoutMs: number;
  validatePerson: RecordCheck;
  validateCompany: RecordCheck;
}

export class SourceFailure extends Error {}

export class HttpLiveSource implements RawLiveSource {
  readonly name = 'http';
  /** Opened at the first call: undici is loaded then (domain/undici.ts). */
  private pool: Pool | undefined;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly opts: HttpSourceOptions) {
    const url = new URL(opts.url);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = { accept: 'application/json' };
    if (opts.token) {
      const name = (opts.authHeader || 'authorization').toLowerCase();
      this.headers[name] = name === 'authorization' ? `Bearer ${opts.token}` : opts.token;
    }
  }

  private connections(): Pool {
    this.pool ??= new (loadUndici().Pool)(this.origin, {
      connections: this.opts.connections,
      connectTimeout: this.opts.timeoutMs,
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      keepAliveTimeout: 10_000,
    });
    return this.pool;
  }

  private async call(method: 'GET' | 'POST', path: string, signal: AbortSignal, body?: object): Promise<{ status: number; json: unknown }> {
    let res;
    try {
      res = await this.connections().request({
        method,
        path: this.basePath + path,
        headers: body ? { ...this.headers, 'content-type': 'application/json' } : this.headers,
        body: body ? JSON.stringify(body) : undefined,
        signal,
      });
    } catch (err) {
      throw new SourceFailure(`live source unreachable: ${(err as Error).message}`);
    }
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => undefined);
      if (res.statusCode === 404) return { status: 404, json: undefined };
      throw new SourceFailure(`live source answered ${res.statusCode}`);
    }
    try {
      return { status: 200, json: await res.body.json() };
    } catch (err) {
      throw new SourceFailure(`live source sent an unreadable body: ${(err as Error).message}`);
    }
  }

  private checked<R>(value: unknown, check: RecordCheck): R {
    const reason = check(value);
    if (reason) throw new SourceFailure(`live source sent an invalid record: ${reason}`);
    return value as R;
  }

  async person(username: string, signal: AbortSignal): Promise<PersonRecord | null> {
    const { status, json } = await this.call('GET', `/person?username=${encodeURIComponent(username)}`, signal);
    if (status === 404) return null;
    return this.checked<PersonRecord>((json as { data?: unknown })?.data, this.opts.validatePerson);
  }

  async company(ref: CompanyRef, signal: AbortSignal): Promise<CompanyRecord | null> {
    const query = 'username' in ref ? `username=${encodeURIComponent(ref.username)}` : `company_id=${encodeURIComponent(ref.companyId)}`;
    const { status, json } = await this.call('GET', `/company?${query}`, signal);
    if (status === 404) return null;
    return this.checked<CompanyRecord>((json as { data?: unknown })?.data, this.opts.validateCompany);
  }

  private async lookup<R>(path: string, usernames: readonly string[], check: RecordCheck, signal: AbortSignal): Promise<(R | null)[]> {
    const { status, json } = await this.call('POST', path, signal, { usernames });
    const results = (json as { results?: unknown })?.results;
    if (status !== 200 || !Array.isArray(results) || results.length !== usernames.length) {
      throw new SourceFailure('live source sent a malformed batch answer');
    }
    return results.map((r: { data?: unknown }) => (r?.data == null ? null : this.checked<R>(r.data, check)));
  }

  persons(usernames: readonly string[], signal: AbortSignal): Promise<(PersonRecord | null)[]> {
    return this.lookup('/persons/lookup', usernames, this.opts.validatePerson, signal);
  }

  companies(usernames: readonly string[], signal: AbortSignal): Promise<(CompanyRecord | null)[]> {
    return this.lookup('/companies/lookup', usernames, this.opts.validateCompany, signal);
  }

  async close(): Promise<void> {
    await this.pool?.close().catch(() => undefined);
  }
}
