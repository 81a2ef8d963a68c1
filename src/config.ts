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
  /** How long a verified API key stays cached in memory (invalidated early by NOTIFY). */
  authCacheTtlMs: number;
  bodyLimitBytes: number;
  /** Honour X-Forwarded-For when the service sits behind a reverse proxy. */
  trustProxy: boolean;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
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
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30000, 0),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
  };
}
