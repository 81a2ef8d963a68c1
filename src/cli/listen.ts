/**
 * `enrich listen --forward-to <url>`: receives a workspace's events on a developer's machine with
 * nothing but an API key. It tails the event feed (GET /events, `after=` the last event its
 * receiver acknowledged) and POSTs each event's body to a local URL, signed with Standard Webhooks
 * headers exactly as a real delivery is (domain/webhooks/signing.ts). No inbound connection, no
 * certificate, no loopback setting on the server: the server only answers GETs.
 *
 * It loses nothing (issue 32):
 * - an event moves on only once the receiver answered it 2xx; anything else (a refused connection,
 *   a timeout, a 5xx, a 4xx) is retried, same webhook-id, with a backoff doubling from 0.5 s to
 *   `--max-backoff`;
 * - a failed poll (the API restarting, a 503, a 429, a timeout) is retried the same way; only an
 *   answer that retrying cannot change (a refused key, an unknown `after` event) stops it, exit 1;
 * - the last acknowledged event is kept in a state file (`--state-file`, by default one per API,
 *   key, filters and receiver under the data directory, written atomically after every 2xx), so
 *   run again it resumes exactly after it. `--from <event id>` starts after that event instead;
 *   with neither, it starts at the end of the feed (events from now on).
 *
 * The signing secret: `--secret` if given; else, with `--monitor`, the monitor's own secret when this
 * process can reach it as the operator (monitorSecrets below); else one generated for the session
 * and printed. The API never returns a monitor's secret (it is revealed once, by `enrich monitor
 * secret` or the dashboard), so with nothing but an API key the monitor's own secret is out of reach.
 * A list job's `job.completed` / `job.failed` is forwarded like any other event, signed with the same
 * secret as the others (given or generated): a job has no monitor secret (its own webhook secret is
 * shown once by POST /jobs, never by the API again), and with `--monitor` the feed lists that
 * monitor's events only, so no job event.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { withDatabase, type CliIo } from './common';
import { load } from './lazy';

const lazy = {
  signing: () => require('../domain/webhooks/signing') as typeof import('../domain/webhooks/signing'),
  secrets: () => require('../domain/webhooks/secrets') as typeof import('../domain/webhooks/secrets'),
  monitors: () => require('../domain/monitors/monitors') as typeof import('../domain/monitors/monitors'),
};

export interface ListenOptions {
  forwardTo: string;
  /** The server's address, as given (`http://host:port` or the client's base URL `.../api/v1`). */
  apiUrl: string;
  apiKey: string;
  monitor?: string;
  events?: string[];
  secret?: string;
  from?: string;
  /** Where the last acknowledged event id is kept. */
  stateFile: string;
  intervalMs: number;
  /** Per request, to the API and to the receiver. */
  timeoutMs: number;
  /** The longest pause between two tries of a poll or of a forward. */
  maxBackoffMs: number;
}

interface FeedEvent {
  id: string;
  event: string;
}

interface FeedPage {
  results: FeedEvent[];
  next_cursor: string | null;
}

/** A refusal that retrying cannot change: listen stops (exit 1) with this message. */
export class ListenError extends Error {}

/** An answer worth trying again (no answer, 5xx, 429): its Retry-After, if any, in ms. */
class Transient extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The API root: `http://host:port`, also when given as the client's base URL (`.../api/v1`). */
export function apiRoot(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ListenError(`--api-url: not a URL: ${given} (e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenError(`--api-url: not an http(s) URL: ${given}`);
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

/** The receiver's URL, checked before anything is read: a URL listen cannot POST to loses every event. */
export function forwardTarget(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ListenError(`--forward-to: not a URL: ${given} (e.g. http://127.0.0.1:4000/webhooks)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenError(`--forward-to: not an http(s) URL: ${given}`);
  return url.toString();
}

/** The default state file: one per API, key, filters and receiver, so the same command resumes. */
export function defaultStateFile(dataDir: string, o: { apiUrl: string; apiKey: string; monitor?: string; events?: string[]; forwardTo: string }): string {
  const id = createHash('sha256')
    .update(JSON.stringify([apiRoot(o.apiUrl), createHash('sha256').update(o.apiKey).digest('hex'), o.monitor ?? null, [...(o.events ?? [])].sort(), o.forwardTo]))
    .digest('hex')
    .slice(0, 16);
  return path.join(dataDir, 'listen', `${id}.json`);
}

function readState(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ListenError(`the state file ${file} cannot be read: ${(err as Error).message}`);
  }
  try {
    const after = (JSON.parse(text) as { after?: unknown }).after;
    if (typeof after === 'string' && /^[0-9a-f-]{36}$/i.test(after)) return after;
  } catch {
    // Reported below.
  }
  throw new ListenError(`the state file ${file} is not listen's (delete it, or pass --from <event id>)`);
}

/** Written whole under a temporary name, then renamed into place: a crash leaves the old or the new state, never half. */
function writeState(file: string, after: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, `${JSON.stringify({ after, updated_at: new Date().toISOString() })}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

const describeError = (err: unknown) =>
  err instanceof Error ? (err.name === 'TimeoutError' ? 'timed out' : err.cause instanceof Error ? err.cause.message : err.message) : String(err);

/** A pause that an abort cuts short. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    // One listener per wait, removed when the wait ends: a listener left on the long-lived signal
    // at every poll would pile up (Node warns past 10).
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Backoff: 0.5 s, doubling, capped; ±20 % jitter so several listeners do not retry in step. */
function backoffMs(attempt: number, capMs: number): number {
  const base = Math.min(capMs, 500 * 2 ** Math.min(attempt, 20));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

const retryAfterOf = (res: Response) => {
  const s = Number(res.headers.get('retry-after'));
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined;
};

async function apiGet<T>(o: ListenOptions, pathAndQuery: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${apiRoot(o.apiUrl)}/api/v1${pathAndQuery}`, {
      headers: { Authorization: `Bearer ${o.apiKey}` },
      signal: AbortSignal.timeout(o.timeoutMs),
    });
  } catch (err) {
    throw new Transient(describeError(err));
  }
  let body: T & { error?: string; code?: string };
  try {
    body = (await res.json()) as T & { error?: string; code?: string };
  } catch (err) {
    throw new Transient(`answered ${res.status} without a JSON body (${describeError(err)})`);
  }
  const what = `answered ${res.status} ${body.code ?? ''}: ${body.error ?? ''}`;
  if (res.status >= 500 || res.status === 429 || res.status === 408) throw new Transient(what, retryAfterOf(res));
  if (res.status !== 200) throw new ListenError(`GET ${pathAndQuery.split('?')[0]} ${what}`);
  return body;
}

/** `fn` until it succeeds: a transient failure is printed and tried again after a backoff; a ListenError ends it. */
async function persist<T>(o: ListenOptions, io: CliIo, signal: AbortSignal, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof Transient)) throw err;
      const wait = Math.min(o.maxBackoffMs, Math.max(err.retryAfterMs ?? 0, backoffMs(attempt, o.maxBackoffMs)));
      io.stdout.write(`${new Date().toISOString()}  ${what} ${err.message} (trying again in ${(wait / 1000).toFixed(1)} s)\n`);
      await pause(wait, signal);
      if (signal.aborted) return undefined;
    }
  }
}

/**
 * The feed's path for one poll. The page's params are copied, never changed: a poll retried after a
 * failure calls this again with the same params, and appending the event filters to them each time
 * grew the query past the contract's 10 `event` values (a 400 that ended listen after a server
 * restart longer than ten retries).
 */
export function feedQuery(o: Pick<ListenOptions, 'monitor' | 'events'>, page: URLSearchParams): string {
  const params = new URLSearchParams(page);
  if (o.monitor) params.set('monitor_id', o.monitor);
  for (const e of o.events ?? []) params.append('event', e);
  params.set('per_page', '100');
  return `/events?${params}`;
}

/** The pages after `after` (all of them), in order; each page's poll is retried until it answers. */
async function* eventsAfter(o: ListenOptions, io: CliIo, signal: AbortSignal, after: string | undefined): AsyncGenerator<FeedEvent> {
  const get = (params: URLSearchParams) => persist(o, io, signal, 'GET /events', () => apiGet<FeedPage>(o, feedQuery(o, params)));
  let page = await get(new URLSearchParams(after ? { after } : {}));
  while (page) {
    yield* page.results;
    if (!page.next_cursor || signal.aborted) return;
    page = await get(new URLSearchParams({ cursor: page.next_cursor }));
  }
}

/** The monitor must be the API key's workspace's (GET /monitors/{id}); throws otherwise. */
async function checkMonitor(o: ListenOptions, io: CliIo, signal: AbortSignal, id: string): Promise<void> {
  await persist(o, io, signal, `GET /monitors/${id}`, () => apiGet(o, `/monitors/${encodeURIComponent(id)}`));
}

/**
 * The monitor's signing secrets (current first, as a real delivery signs), read the way the
 * server's delivery worker reads them: from its database, decrypted with its server key
 * (secrets.ts serverKeysOf, which never creates a key here: a new key could decrypt nothing). Only
 * an operator running listen where the server's configuration is (DATABASE_URL set, and the server
 * key in WEBHOOK_SECRET_KEY or DATA_DIR's key file) can; otherwise why not, for the start line.
 */
async function monitorSecrets(io: CliIo, id: string): Promise<{ secrets: string[] } | { reason: string }> {
  if (!io.env.DATABASE_URL) return { reason: 'DATABASE_URL is not set' };
  const config = load.config().loadConfig(io.env);
  try {
    const keys = lazy.secrets().serverKeysOf(config, { create: false });
    if (!keys) return { reason: 'the server key is not here (WEBHOOK_SECRET_KEY, or webhook-secret.key in DATA_DIR)' };
    const secrets = await withDatabase(io, (db) => lazy.monitors().signingSecrets({ db, keys }, id), { migrate: false });
    return { secrets };
  } catch (err) {
    return { reason: `the server's database or key did not give it (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The secrets to sign with, and the start line that says which and why. */
async function chooseSecrets(o: ListenOptions, io: CliIo, signal: AbortSignal): Promise<{ secrets: string[]; line: string }> {
  if (o.secret) return { secrets: [o.secret], line: `Signing secret: ${o.secret} (given)` };
  let why = '';
  if (o.monitor) {
    await checkMonitor(o, io, signal, o.monitor);
    const own = await monitorSecrets(io, o.monitor);
    if ('secrets' in own)
      return { secrets: own.secrets, line: `Signing secret: monitor ${o.monitor}'s own (read from the server's database; not shown: verify with the secret you saved)` };
    why = `\n  Not the monitor's own secret: the API never returns it, and as the operator ${own.reason}. Pass --secret whsec_... to sign with it.`;
  }
  const secret = lazy.secrets().generateWebhookSecret();
  return { secrets: [secret], line: `Signing secret: ${secret} (generated for this session; verify with it)${why}` };
}

/** One event to the receiver, signed, until it answers 2xx (or listen is stopped: false). */
async function forward(o: ListenOptions, io: CliIo, signal: AbortSignal, secrets: string[], event: FeedEvent): Promise<boolean> {
  const { webhookHeaders } = lazy.signing();
  // The stored body's bytes: JSON.parse then stringify keeps the key order and the values.
  const body = JSON.stringify(event);
  for (let attempt = 0; !signal.aborted; attempt++) {
    const headers = webhookHeaders(secrets, event.id, Math.floor(Date.now() / 1000), body);
    let status: string;
    let ok = false;
    try {
      const res = await fetch(o.forwardTo, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      status = String(res.status);
      ok = res.status >= 200 && res.status < 300;
    } catch (err) {
      status = `error: ${describeError(err)}`;
    }
    if (ok) {
      io.stdout.write(`${new Date().toISOString()}  ${event.event}  ${event.id}  -> ${status}\n`);
      return true;
    }
    const wait = backoffMs(attempt, o.maxBackoffMs);
    io.stdout.write(`${new Date().toISOString()}  ${event.event}  ${event.id}  -> ${status} (not acknowledged: trying again in ${(wait / 1000).toFixed(1)} s)\n`);
    await pause(wait, signal);
  }
  return false;
}

/** Runs until `signal` aborts. Returns when stopped; throws a ListenError when the API refuses for good (bad key, etc.). */
export async function listen(o: ListenOptions, io: CliIo, signal: AbortSignal): Promise<void> {
  forwardTarget(o.forwardTo);
  apiRoot(o.apiUrl);
  const stored = o.from ? undefined : readState(o.stateFile);
  const { secrets, line } = await chooseSecrets(o, io, signal);
  io.stdout.write(`Forwarding events to ${o.forwardTo}\n`);
  io.stdout.write(`${line}\n`);
  let last = o.from ?? stored;
  if (o.from) io.stdout.write(`Starting after event ${o.from} (--from)\n`);
  else if (stored) io.stdout.write(`Resuming after event ${stored} (state file ${o.stateFile})\n`);
  else {
    for await (const e of eventsAfter(o, io, signal, undefined)) last = e.id;
    if (signal.aborted) return;
    io.stdout.write(`Starting at the end of the feed${last ? ` (after event ${last})` : ''}\n`);
  }
  if (last) writeState(o.stateFile, last);
  io.stdout.write(`State: ${o.stateFile} (the last event the receiver acknowledged; run again to resume there)\n`);
  io.stdout.write(`Ready: waiting for events${o.monitor ? ` of monitor ${o.monitor}` : ''}${o.events?.length ? ` (${o.events.join(', ')})` : ''}. Ctrl-C to stop.\n`);
  while (!signal.aborted) {
    for await (const event of eventsAfter(o, io, signal, last)) {
      if (!(await forward(o, io, signal, secrets, event))) return;
      last = event.id;
      writeState(o.stateFile, last);
      if (signal.aborted) return;
    }
    await pause(o.intervalMs, signal);
  }
}

const positiveInt = (name: string, fallback: number) => (value: string | undefined) => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new ListenError(`${name}: a positive whole number of milliseconds, not ${value}`);
  return n;
};

export function registerListenCommand(program: Command, io: CliIo): void {
  program
    .command('listen')
    .description(
      "Forward the workspace's events to a local URL, signed like real webhook deliveries (polls GET /events with an API key). " +
        'Nothing is lost: an event moves on only after the receiver answers it 2xx (retried with backoff otherwise), a failed poll is retried, ' +
        'and the last acknowledged event is kept in a state file, so running the same command again resumes right after it',
    )
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://127.0.0.1:4000/webhooks')
    .option('--api-key <key>', 'the workspace API key (default: $ENRICH_API_KEY)')
    .option('--api-url <base>', 'where the server is reached, e.g. http://127.0.0.1:3000 or http://127.0.0.1:3000/api/v1 (default http://127.0.0.1:$PORT)')
    .option('--monitor <id>', 'only this monitor\'s events')
    .option('--events <types...>', 'only these event types, e.g. person.job_changed monitor.test, or job.completed job.failed (list jobs)')
    .option(
      '--secret <whsec>',
      "sign with this secret. Without it: with --monitor, the monitor's own secret when run as the operator where the server's DATABASE_URL and server key are (the API never returns a monitor's secret, so an API key alone cannot); otherwise a secret generated for the session and printed",
    )
    .option('--from <event-id>', 'start right after this event (overrides the state file); without it and without a state file, at the end of the feed')
    .option(
      '--state-file <path>',
      'where the last event the receiver acknowledged is kept, to resume after a restart (default: $ENRICH_DATA_DIR/listen/<one file per API, key, filters and --forward-to>.json, printed at start)',
    )
    .option('--interval <ms>', 'polling interval once the feed is read to its end', '1000')
    .option('--max-backoff <ms>', 'the longest pause between two tries of a failed forward or poll', '30000')
    .action(
      async (opts: { forwardTo: string; apiKey?: string; apiUrl?: string; monitor?: string; events?: string[]; secret?: string; from?: string; stateFile?: string; interval: string; maxBackoff: string }) => {
        const apiKey = opts.apiKey ?? io.env.ENRICH_API_KEY;
        if (!apiKey) throw new ListenError('an API key is needed: --api-key or ENRICH_API_KEY');
        const forwardTo = forwardTarget(opts.forwardTo);
        if (opts.from !== undefined && !/^[0-9a-f-]{36}$/i.test(opts.from)) throw new ListenError(`--from: not an event id: ${opts.from}`);
        const config = load.config().loadConfig(io.env);
        const apiUrl = apiRoot(opts.apiUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`);
        const stateFile = opts.stateFile ? path.resolve(opts.stateFile) : defaultStateFile(config.dataDir, { apiUrl, apiKey, monitor: opts.monitor, events: opts.events, forwardTo });
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await listen(
            {
              forwardTo,
              apiUrl,
              apiKey,
              monitor: opts.monitor,
              events: opts.events,
              secret: opts.secret,
              from: opts.from,
              stateFile,
              intervalMs: Math.max(100, positiveInt('--interval', 1000)(opts.interval)),
              timeoutMs: 15_000,
              maxBackoffMs: Math.max(100, positiveInt('--max-backoff', 30_000)(opts.maxBackoff)),
            },
            io,
            controller.signal,
          );
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      },
    );
}
