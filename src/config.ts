/**
 * Every setting the service reads, typed and validated once at start.
 * Nothing else in the code base reads process.env.
 */
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  redisUrl: string | undefined;
  logLevel: string;
  /** Requests per minute for new workspaces (spec: 500). */
  defaultWorkspaceRateLimit: number;
  /** Requests per minute per client address for unauthenticated traffic (GET /health). */
  anonymousRateLimit: number;
  rateLimitWindowSeconds: number;
  /** Failed authentications (401) admitted per client address and window before it gets 429. */
  authFailureLimit: number;
  /** How long a verified API key stays cached in memory (invalidated early by NOTIFY). */
  authCacheTtlMs: number;
  /** The cache TTL while the NOTIFY channel is down, so a revocation never waits out the full TTL. */
  authCacheDegradedTtlMs: number;
  bodyLimitBytes: number;
  /**
   * Reverse proxies in front of the service whose X-Forwarded-For entries are trusted: the client
   * address is the one the outermost of them saw (the entry this many places from the right).
   * 0 = X-Forwarded-For is ignored.
   */
  trustProxyHops: number;
  /** Server-side statement timeout of request queries; the client gives up a second later. */
  dbStatementTimeoutMs: number;
  /** Longest wait for a pooled connection (and for a new connection to be established). */
  dbAcquireTimeoutMs: number;
  dbPoolMax: number;
  /** Redis commands of the shared rate-limit store give up after this, then the in-memory fallback answers. */
  redisCommandTimeoutMs: number;
  /** How long the readiness check waits for each dependency. */
  readinessTimeoutMs: number;
  /** Whole request (headers and body) must arrive within this; Node's default is 300 s. */
  httpRequestTimeoutMs: number;
  httpHeadersTimeoutMs: number;
  /** Open connections beyond this are closed at once. */
  httpMaxConnections: number;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got ${parsed.protocol})`);
  }
  return raw;
}

/** TRUST_PROXY: a number of proxy hops; `true` means one (the usual single reverse proxy), `false` none. */
function proxyHops(env: NodeJS.ProcessEnv): number {
  const raw = env.TRUST_PROXY;
  if (raw === undefined || raw === '' || raw === 'false') return 0;
  if (raw === 'true') return 1;
  return int(env, 'TRUST_PROXY', 0, 0, 32);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Config = {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.ENRICH_DATA_DIR || '.data'),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel: env.LOG_LEVEL || 'info',
    defaultWorkspaceRateLimit: int(env, 'DEFAULT_RATE_LIMIT', 500, 1),
    anonymousRateLimit: int(env, 'ANONYMOUS_RATE_LIMIT', 600, 1),
    rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86400),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 20, 1),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30000, 0),
    authCacheDegradedTtlMs: int(env, 'AUTH_CACHE_DEGRADED_TTL_MS', 2000, 0),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    trustProxyHops: proxyHops(env),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
    dbAcquireTimeoutMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', 2000, 100, 600_000),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10, 1, 1000),
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 150, 10, 60_000),
    readinessTimeoutMs: int(env, 'READINESS_TIMEOUT_MS', 1000, 50, 60_000),
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    httpHeadersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 3_600_000),
    httpMaxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 1000, 1, 1_000_000),
  };
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  return config;
}
