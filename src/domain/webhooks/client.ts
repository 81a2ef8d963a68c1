/**
 * The HTTP client of webhook deliveries: undici with a connect step that checks the address it is
 * about to dial, on every new connection. A host name is resolved by our own lookup, and when any
 * of its addresses is private or internal (ssrf.ts rules) the connection is refused before a socket
 * is opened, so DNS rebinding after the monitor was created sends nothing. An IP literal is checked
 * the same way (Node dials literals without a lookup). Redirects are never followed (undici does
 * not follow them unless asked), https only, and one deadline bounds the whole attempt.
 */
import type { LookupAddress, LookupOneOptions, LookupAllOptions } from 'node:dns';
import type { Agent, buildConnector } from 'undici';
import { loadUndici } from '../undici';
import { addressRefusal, ipLiteral, type ResolveHost, type SsrfPolicy } from './ssrf';

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

export interface WebhookClientOptions {
  policy: SsrfPolicy;
  resolveHost: ResolveHost;
  /** The whole attempt: connect, TLS, request and the answer's status line (contract: 15 s). */
  timeoutMs: number;
  /** Connections per destination (host:port), the per-destination concurrency cap. */
  connectionsPerDestination: number;
  /** Extra trusted CA certificates (PEM), for receivers with a private CA (tests, development). */
  ca?: string;
}

export interface AttemptResult {
  statusCode: number | null;
  /** Why it was not a success, in words; null for a 2xx. */
  error: string | null;
  latencyMs: number;
  retryAfter?: string;
  /** The refusal came from the address check (nothing was sent). */
  blocked: boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class WebhookClient {
  /** Built at the first delivery: undici is loaded then, not by every process that creates an app. */
  private agent: Agent | undefined;

  constructor(private readonly opts: WebhookClientOptions) {}

  private dispatcher(): Agent {
    this.agent ??= this.createAgent();
    return this.agent;
  }

  private createAgent(): Agent {
    const undici = loadUndici();
    const { opts } = this;
    const { policy, resolveHost } = opts;
    const lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
      resolveHost(hostname).then(
        (addresses) => {
          if (!addresses.length) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
          for (const address of addresses) {
            const refusal = addressRefusal(address, policy);
            if (refusal) return callback(new BlockedAddressError(`blocked address: ${hostname} resolves to ${refusal}`), []);
          }
          const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
          if ((options as LookupAllOptions).all) callback(null, all);
          else callback(null, all[0]!.address, all[0]!.family);
        },
        (err: NodeJS.ErrnoException) => callback(err, []),
      );
    };
    const base = undici.buildConnector({ ca: opts.ca, timeout: opts.timeoutMs, lookup } as buildConnector.BuildOptions);
    const connect: buildConnector.connector = (options, callback) => {
      if (options.protocol !== 'https:') return callback(new BlockedAddressError('webhook URLs must use https'), null);
      const literal = ipLiteral(options.hostname);
      const refusal = literal && addressRefusal(literal, policy);
      if (refusal) return callback(new BlockedAddressError(`blocked address: ${refusal}`), null);
      return base(options, callback);
    };
    return new undici.Agent({
      connect,
      connections: opts.connectionsPerDestination,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      keepAliveTimeout: 4000,
    });
  }

  /**
   * One POST. Never throws: every failure is an AttemptResult. `timeoutMs` shortens this attempt's
   * deadline below the client's (the delivery worker: an attempt must end within its lease).
   */
  async post(url: string, body: string, headers: Record<string, string>, timeoutMs = this.opts.timeoutMs): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await loadUndici().request(url, {
        method: 'POST',
        body,
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'enrich-webhooks/1' },
        dispatcher: this.dispatcher(),
        signal: AbortSignal.timeout(Math.min(timeoutMs, this.opts.timeoutMs)),
      });
      const latencyMs = elapsed();
      // The answer's body is ignored; read it away (bounded by bodyTimeout) so the connection is reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = res.headers['retry-after'];
      return {
        statusCode: res.statusCode,
        error: ok ? null : res.statusCode >= 300 && res.statusCode < 400 ? `redirect not followed (HTTP ${res.statusCode})` : `HTTP ${res.statusCode}`,
        latencyMs,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        blocked: false,
      };
    } catch (err) {
      return { statusCode: null, error: describe(err), latencyMs: elapsed(), blocked: findBlocked(err) !== undefined };
    }
  }

  async close(): Promise<void> {
    await this.agent?.close().catch(() => undefined);
  }
}

function findBlocked(err: unknown): BlockedAddressError | undefined {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof BlockedAddressError) return e;
  }
  return undefined;
}

/** A network failure in the words of the delivery log. */
function describe(err: unknown): string {
  const blocked = findBlocked(err);
  if (blocked) return blocked.message;
  const chain: { code?: string; name?: string; message?: string }[] = [];
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) chain.push(e as (typeof chain)[number]);
  const codes = chain.map((e) => e.code ?? e.name ?? '');
  const has = (...names: string[]) => codes.some((c) => names.includes(c));
  if (has('TimeoutError', 'AbortError', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT')) return 'timeout';
  if (has('ECONNREFUSED')) return 'connection refused';
  if (has('ENOTFOUND', 'EAI_AGAIN')) return 'host does not resolve';
  if (has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')) return 'connection reset';
  const tls = codes.find((c) => /CERT|SSL|TLS|SELF_SIGNED/.test(c));
  if (tls) return `TLS error: ${tls}`;
  return chain[0]?.message || 'network error';
}
