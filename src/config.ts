/**
 * Every setting the service reads, typed and validated once at start.
 * Nothing else in the code base reads process.env, but for two families read where they are used:
 * ENRICH_COMMIT (observability/version.ts: the build's identity, needed by `enrich --version` before
 * any config) and the standard OTEL_* variables (observability/tracing.ts decides from them whether
 * to load the SDK, which reads the rest itself, as every OpenTelemetry SDK does).
 */
import path from 'node:path';
import type { LiveSourceSettings } from './domain/live/resilience';

export interface Config {
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under dataDir is used. */
  databaseUrl: string | undefined;
  /** Read replicas of DATABASE_URL (streaming standbys) that serve the lake's reads. */
  readReplicas: ReadReplicasConfig;
  dataDir: string;
  embeddedPgPort: number;
  redisUrl: string | undefined;
  logLevel: string;
  /** ACCESS_LOG: one info line per answered request (http/middleware/edge.ts); default on. */
  accessLog: boolean;
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
  /** How often the in-memory request counts of the usage timeline are written (a crash loses at most this much). */
  usageFlushMs: number;
  /**
   * PUBLIC_URL: the address users reach the service at (scheme, host, port). When set, the
   * dashboard's calls (every method) must come from exactly this origin; unset, the origin the request
   * itself names (its Host, or X-Forwarded-Host behind TRUST_PROXY).
   */
  publicOrigin: string | undefined;
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
  live: LiveConfig;
  simulator: SimulatorConfig;
  refresh: RefreshConfig;
  webhooks: WebhooksConfig;
  jobs: JobsConfig;
}

/** List jobs (issue 34): uploads, the queue and retention. README "List jobs" says why each value. */
export interface JobsConfig {
  /** JOB_UPLOAD_MAX_BYTES: the largest upload (413 JOB_UPLOAD_TOO_LARGE above it, nothing kept). */
  maxUploadBytes: number;
  /** JOB_MAX_ROWS: the most data rows of one upload. */
  maxRows: number;
  /** JOB_CONCURRENT_PER_WORKSPACE: jobs of one workspace worked on at once; the others wait queued. */
  concurrentPerWorkspace: number;
  /** JOB_RETENTION_DAYS: a job, its rows and results are deleted this long after it was submitted. */
  retentionDays: number;
  /** JOB_CHUNK_ROWS: rows per claimed chunk (one transaction of results). */
  chunkRows: number;
  /** JOB_LEASE_SECONDS: a chunk whose worker died is taken over after this. */
  leaseSeconds: number;
  /** JOB_WORKER_IN_PROCESS: `enrich serve` runs the job worker too (default on). */
  inProcess: boolean;
  /** JOB_WORKER_CONCURRENCY: chunks one worker process works on at once. */
  concurrency: number;
  /** JOB_POLL_MS: how often an idle worker looks for work. */
  pollMs: number;
}

/**
 * DATABASE_READ_URL: standbys of DATABASE_URL (pg_basebackup -R) that serve the lake's reads
 * (db/replicas.ts). Writes, metering, locks, the LISTEN channel, queues and sessions stay on the
 * primary. Empty `urls`: every read goes to the primary, as on one PostgreSQL.
 */
export interface ReadReplicasConfig {
  /** DATABASE_READ_URL, comma-separated: one or more standbys. */
  urls: string[];
  /** DATABASE_READ_MAX_LAG_SECONDS: a standby further behind than this is not read from until it catches up. */
  maxLagSeconds: number;
  /** DATABASE_READ_PROBE_MS: how often each standby's replay lag is measured (each probe bounded by READINESS_TIMEOUT_MS). */
  probeMs: number;
  /** DATABASE_READ_POOL_MAX: connections per standby (default DB_POOL_MAX). */
  poolMax: number;
}

/**
 * The live source (realtime operations and the refresh): which one, and its settings (deadlines,
 * concurrency, breaker), whose shape and meaning are declared once in domain/live/resilience.ts.
 */
export interface LiveConfig extends LiveSourceSettings {
  /** `http` with LIVE_SOURCE_URL, `simulator` with LIVE_SOURCE=simulator, `none` otherwise. */
  mode: 'http' | 'simulator' | 'none';
  url: string | undefined;
  token: string | undefined;
  authHeader: string | undefined;
}

/** The in-process simulator of LIVE_SOURCE=simulator (and the defaults of `enrich live-sim`). */
export interface SimulatorConfig {
  persons: number;
  companies: number;
  seed: number;
  /** Unset: the saved state's, else today. */
  asOf: Date | undefined;
  /** Simulated seconds per wall-clock second. */
  speed: number;
  /** Control endpoint port on 127.0.0.1 (0 = any free port). */
  port: number;
  /** Change rates per entity per simulated day (LIVE_SIM_RATES="job=0.01,headcount=0.1"). */
  rates: Record<string, number>;
}

/** The background refresh worker. */
export interface RefreshConfig {
  /** Run the worker inside `enrich serve`. */
  inProcess: boolean;
  /** Records per second per worker (0 = as fast as it goes). */
  rate: number;
  batchSize: number;
  /** A record verified less than this ago is not due. */
  minAgeSeconds: number;
  /** The same for records watched by a monitor. */
  watchedMinAgeSeconds: number;
  /** How long a claimed batch stays with its worker: the bound on recovery after a crash. */
  leaseSeconds: number;
  /** Pause when nothing is due. */
  idleMs: number;
  /** Seconds between progress lines in the log. */
  progressSeconds: number;
}

/** Monitors and webhook delivery (issue 13). */
export interface WebhooksConfig {
  /** WEBHOOK_SECRET_KEY: base64 of 32 bytes; unset = generated into the data directory. */
  secretKey: string | undefined;
  /** WEBHOOK_SECRET_KEYS_PREVIOUS: older server keys that still decrypt (rotation). */
  previousSecretKeys: string[];
  /** WEBHOOKS_ALLOW_LOOPBACK: development only; loopback receivers allowed (logged loudly). */
  allowLoopback: boolean;
  /** Monitors per workspace. */
  maxMonitorsPerWorkspace: number;
  delivery: DeliveryConfig;
}

/** The webhook delivery worker. */
export interface DeliveryConfig {
  /** Run the worker inside `enrich serve` (WEBHOOK_DELIVERY_IN_PROCESS; `enrich worker` always runs it). */
  inProcess: boolean;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before retries 1..n (contract: 5,300,1800,7200,18000,36000,36000). */
  schedule: number[];
  /** WEBHOOK_TIMEOUT_MS: one attempt, connect to status line (contract: 15 s). */
  timeoutMs: number;
  /** WEBHOOK_CONCURRENCY: attempts in flight per worker. */
  concurrency: number;
  /** WEBHOOK_PER_DESTINATION: attempts in flight per worker to one host:port. */
  perDestination: number;
  /** WEBHOOK_LEASE_SECONDS: how long a claimed delivery stays with its worker (more than the timeout). */
  leaseSeconds: number;
  /** WEBHOOK_POLL_MS: pause when nothing is due. */
  pollMs: number;
  /** WEBHOOK_RETRY_AFTER_CAP_SECONDS: the longest Retry-After honoured. */
  retryAfterCapSeconds: number;
  /** WEBHOOK_DEACTIVATE_AFTER_SECONDS: a monitor failing this long is deactivated (5 days). */
  deactivateAfterSeconds: number;
  /** WEBHOOK_CA_FILE: extra trusted CA certificates (PEM) for receivers with a private CA. */
  caFile: string | undefined;
  /** WEBHOOK_DB_TIMEOUT_MS: statement and connection-wait timeout of the worker's queries. */
  dbTimeoutMs: number;
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

const RATE_NAMES = ['job', 'title', 'location', 'headcount', 'name', 'hq', 'industry'];

function rates(env: NodeJS.ProcessEnv, name: string, fallback: Record<string, number>): Record<string, number> {
  const raw = env[name];
  if (!raw) return fallback;
  const out: Record<string, number> = { ...fallback };
  for (const part of raw.split(',')) {
    const [key, value] = part.split('=').map((x) => x.trim());
    if (!key || !RATE_NAMES.includes(key) || value === undefined || !/^[0-9]*\.?[0-9]+$/.test(value)) {
      throw new ConfigError(`${name} must look like "job=0.01,headcount=0.1" with names ${RATE_NAMES.join(', ')}`);
    }
    out[key] = Number(value);
  }
  return out;
}

/** A comma-separated list of non-negative seconds (decimals allowed), at least one. */
function schedule(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  if (!parts.every((p) => /^[0-9]*\.?[0-9]+$/.test(p))) throw new ConfigError(`${name} must be seconds separated by commas, e.g. "5,300,1800"`);
  return parts.map(Number);
}

/** DATABASE_READ_URL: comma-separated PostgreSQL URLs, each validated like DATABASE_URL. */
function readUrls(env: NodeJS.ProcessEnv): string[] {
  const raw = env.DATABASE_READ_URL;
  if (!raw) return [];
  const urls = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  urls.forEach((one, i) => url({ [`DATABASE_READ_URL (entry ${i + 1})`]: one }, `DATABASE_READ_URL (entry ${i + 1})`, ['postgres:', 'postgresql:']));
  return urls;
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]*\.?[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative number, got "${raw}"`);
  return Number(raw);
}

function date(env: NodeJS.ProcessEnv, name: string): Date | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(raw)) throw new ConfigError(`${name} must be a date (YYYY-MM-DD), got "${raw}"`);
  return new Date(`${raw}T00:00:00Z`);
}

/**
 * `npm start` (serve --demo) shows the world changing within a minute: the simulator's clock runs
 * an hour per second with brisk change rates, and the worker re-verifies records older than 20 s.
 * Each of these is only a default: the environment still wins.
 */
const DEMO_DEFAULTS: NodeJS.ProcessEnv = {
  LIVE_SIM_SPEED: '3600',
  LIVE_SIM_RATES: 'job=0.004,title=0.004,location=0.002,headcount=0.05,name=0.005,hq=0.005,industry=0.005',
  REFRESH_MIN_AGE_SECONDS: '20',
  REFRESH_WATCHED_MIN_AGE_SECONDS: '10',
  REFRESH_RATE: '100',
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: { demo?: boolean } = {}): Config {
  if (opts.demo) env = { ...DEMO_DEFAULTS, ...env };
  const liveUrl = url(env, 'LIVE_SOURCE_URL', ['http:', 'https:']);
  const liveMode = env.LIVE_SOURCE;
  if (liveMode !== undefined && liveMode !== '' && liveMode !== 'simulator' && liveMode !== 'http' && liveMode !== 'none') {
    throw new ConfigError(`LIVE_SOURCE must be simulator, http or none, got "${liveMode}"`);
  }
  if (liveMode === 'http' && !liveUrl) throw new ConfigError('LIVE_SOURCE=http needs LIVE_SOURCE_URL');
  const mode: LiveConfig['mode'] = liveMode === 'simulator' ? 'simulator' : liveMode === 'none' ? 'none' : liveUrl ? 'http' : 'none';
  const config: Config = {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    readReplicas: {
      urls: readUrls(env),
      maxLagSeconds: number(env, 'DATABASE_READ_MAX_LAG_SECONDS', 5),
      probeMs: int(env, 'DATABASE_READ_PROBE_MS', 1000, 100, 60_000),
      poolMax: int(env, 'DATABASE_READ_POOL_MAX', int(env, 'DB_POOL_MAX', 10, 1, 1000), 1, 1000),
    },
    dataDir: path.resolve(env.ENRICH_DATA_DIR || '.data'),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: env.ACCESS_LOG !== '0' && env.ACCESS_LOG !== 'false',
    defaultWorkspaceRateLimit: int(env, 'DEFAULT_RATE_LIMIT', 500, 1),
    anonymousRateLimit: int(env, 'ANONYMOUS_RATE_LIMIT', 600, 1),
    rateLimitWindowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86400),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 20, 1),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30000, 0),
    authCacheDegradedTtlMs: int(env, 'AUTH_CACHE_DEGRADED_TTL_MS', 2000, 0),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    trustProxyHops: proxyHops(env),
    usageFlushMs: int(env, 'USAGE_FLUSH_MS', 5000, 100, 600_000),
    publicOrigin: (() => {
      const raw = url(env, 'PUBLIC_URL', ['http:', 'https:']);
      return raw ? new URL(raw).origin : undefined;
    })(),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
    dbAcquireTimeoutMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', 2000, 100, 600_000),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10, 1, 1000),
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 150, 10, 60_000),
    readinessTimeoutMs: int(env, 'READINESS_TIMEOUT_MS', 1000, 50, 60_000),
    httpRequestTimeoutMs: int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000),
    httpHeadersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1000, 3_600_000),
    httpMaxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 1000, 1, 1_000_000),
    live: {
      mode,
      url: liveUrl,
      token: env.LIVE_SOURCE_TOKEN || undefined,
      authHeader: env.LIVE_SOURCE_AUTH_HEADER || undefined,
      timeoutMs: int(env, 'LIVE_SOURCE_TIMEOUT_MS', 3000, 10, 600_000),
      batchTimeoutMs: int(env, 'LIVE_SOURCE_BATCH_TIMEOUT_MS', 10_000, 10, 600_000),
      concurrency: int(env, 'LIVE_SOURCE_CONCURRENCY', 16, 1, 10_000),
      queue: int(env, 'LIVE_SOURCE_QUEUE', 64, 0, 100_000),
      breakerThreshold: int(env, 'LIVE_SOURCE_BREAKER_THRESHOLD', 5, 1, 10_000),
      breakerCooldownMs: int(env, 'LIVE_SOURCE_BREAKER_COOLDOWN_MS', 10_000, 10, 3_600_000),
    },
    simulator: {
      persons: int(env, 'LIVE_SIM_PERSONS', 3000, 0, 2 ** 24),
      companies: int(env, 'LIVE_SIM_COMPANIES', 150, 1, 2 ** 24),
      seed: int(env, 'LIVE_SIM_SEED', 2026),
      asOf: date(env, 'LIVE_SIM_AS_OF'),
      speed: number(env, 'LIVE_SIM_SPEED', 1),
      port: int(env, 'LIVE_SIM_PORT', 4100, 0, 65535),
      rates: rates(env, 'LIVE_SIM_RATES', {}),
    },
    refresh: {
      inProcess: env.REFRESH_IN_PROCESS !== '0' && env.REFRESH_IN_PROCESS !== 'false',
      rate: number(env, 'REFRESH_RATE', 50),
      batchSize: int(env, 'REFRESH_BATCH', 100, 1, 100),
      minAgeSeconds: int(env, 'REFRESH_MIN_AGE_SECONDS', 86_400),
      watchedMinAgeSeconds: int(env, 'REFRESH_WATCHED_MIN_AGE_SECONDS', 3600),
      leaseSeconds: int(env, 'REFRESH_LEASE_SECONDS', 60, 1, 86_400),
      idleMs: int(env, 'REFRESH_IDLE_MS', 5000, 10, 3_600_000),
      progressSeconds: int(env, 'REFRESH_PROGRESS_SECONDS', 30, 1, 86_400),
    },
    webhooks: {
      secretKey: env.WEBHOOK_SECRET_KEY || undefined,
      previousSecretKeys: (env.WEBHOOK_SECRET_KEYS_PREVIOUS || '').split(',').map((k) => k.trim()).filter(Boolean),
      allowLoopback: env.WEBHOOKS_ALLOW_LOOPBACK === '1' || env.WEBHOOKS_ALLOW_LOOPBACK === 'true',
      maxMonitorsPerWorkspace: 1000,
      delivery: {
        inProcess: env.WEBHOOK_DELIVERY_IN_PROCESS !== '0' && env.WEBHOOK_DELIVERY_IN_PROCESS !== 'false',
        schedule: schedule(env, 'WEBHOOK_RETRY_SCHEDULE', [5, 300, 1800, 7200, 18_000, 36_000, 36_000]),
        timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 15_000),
        concurrency: int(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1000),
        perDestination: int(env, 'WEBHOOK_PER_DESTINATION', 8, 1, 1000),
        leaseSeconds: int(env, 'WEBHOOK_LEASE_SECONDS', 60, 1, 86_400),
        pollMs: int(env, 'WEBHOOK_POLL_MS', 200, 10, 60_000),
        retryAfterCapSeconds: int(env, 'WEBHOOK_RETRY_AFTER_CAP_SECONDS', 3600, 0, 86_400),
        deactivateAfterSeconds: int(env, 'WEBHOOK_DEACTIVATE_AFTER_SECONDS', 5 * 86_400, 1, 365 * 86_400),
        caFile: env.WEBHOOK_CA_FILE || undefined,
        dbTimeoutMs: int(env, 'WEBHOOK_DB_TIMEOUT_MS', 5000, 100, 600_000),
      },
    },
    jobs: {
      maxUploadBytes: int(env, 'JOB_UPLOAD_MAX_BYTES', 1024 ** 3, 1024, 16 * 1024 ** 3),
      maxRows: int(env, 'JOB_MAX_ROWS', 1_000_000, 1, 1_000_000),
      concurrentPerWorkspace: int(env, 'JOB_CONCURRENT_PER_WORKSPACE', 2, 1, 100),
      retentionDays: int(env, 'JOB_RETENTION_DAYS', 7, 1, 365),
      chunkRows: int(env, 'JOB_CHUNK_ROWS', 500, 1, 10_000),
      leaseSeconds: int(env, 'JOB_LEASE_SECONDS', 60, 1, 86_400),
      inProcess: env.JOB_WORKER_IN_PROCESS !== '0' && env.JOB_WORKER_IN_PROCESS !== 'false',
      concurrency: int(env, 'JOB_WORKER_CONCURRENCY', 2, 1, 64),
      pollMs: int(env, 'JOB_POLL_MS', 500, 10, 60_000),
    },
  };
  // A standby of the embedded PostgreSQL is not a topology this service sets up.
  if (config.readReplicas.urls.length && !config.databaseUrl) throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL (the primary)');
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  const delivery = config.webhooks.delivery;
  if (delivery.leaseSeconds * 1000 <= delivery.timeoutMs) {
    // A lease that can expire while an attempt still waits for its receiver lets another claim
    // send the event again; a hanging receiver then got copy after copy and the delivery never
    // reached `failed` (issue 20). The worker also ends each attempt before its lease does.
    throw new ConfigError(
      `WEBHOOK_LEASE_SECONDS (${delivery.leaseSeconds} s) must be longer than the attempt timeout WEBHOOK_TIMEOUT_MS ` +
        `(${delivery.timeoutMs} ms): a claimed delivery must stay with its worker for its whole attempt and the recording of its outcome. ` +
        `Use at least ${Math.floor(delivery.timeoutMs / 1000) + 5} (the default is 60).`,
    );
  }
  return config;
}
