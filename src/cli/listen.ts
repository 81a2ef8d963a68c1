/**
 * `enrich listen --forward-to <url>`: receives a workspace's events on a developer's machine with
 * nothing but an API key. It tails the event feed (GET /events, `after=` the last event seen, so
 * every event is forwarded once, in order) and POSTs each event's body to a local URL, signed with
 * Standard Webhooks headers exactly as a real delivery is (domain/webhooks/signing.ts). No inbound
 * connection, no certificate, no loopback setting on the server: the server only answers GETs.
 *
 * It starts at the end of the feed (only events from now on) unless `--from <event id>` is given.
 *
 * The signing secret: `--secret` if given; else, with `--monitor`, the monitor's own secret when this
 * process can reach it as the operator (monitorSecrets below); else one generated for the session
 * and printed. The API never returns a monitor's secret (it is revealed once, by `enrich monitor
 * secret` or the dashboard), so with nothing but an API key the monitor's own secret is out of reach.
 */
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
  apiUrl: string;
  apiKey: string;
  monitor?: string;
  events?: string[];
  secret?: string;
  from?: string;
  intervalMs: number;
  /** Per request, to the API and to the receiver. */
  timeoutMs: number;
}

interface FeedPage {
  results: { id: string; event: string }[];
  next_cursor: string | null;
}

class ListenError extends Error {}

async function feedPage(o: ListenOptions, params: URLSearchParams): Promise<FeedPage> {
  if (o.monitor) params.set('monitor_id', o.monitor);
  for (const e of o.events ?? []) params.append('event', e);
  params.set('per_page', '100');
  const res = await fetch(`${o.apiUrl.replace(/\/+$/, '')}/api/v1/events?${params}`, {
    headers: { Authorization: `Bearer ${o.apiKey}` },
    signal: AbortSignal.timeout(o.timeoutMs),
  });
  const body = (await res.json()) as FeedPage & { error?: string; code?: string };
  if (res.status !== 200) throw new ListenError(`GET /events answered ${res.status} ${body.code ?? ''}: ${body.error ?? ''}`);
  return body;
}

/** The pages after `after` (all of them), in order. */
async function* eventsAfter(o: ListenOptions, after: string | undefined): AsyncGenerator<{ id: string; event: string }> {
  let page = await feedPage(o, new URLSearchParams(after ? { after } : {}));
  for (;;) {
    yield* page.results;
    if (!page.next_cursor) return;
    page = await feedPage(o, new URLSearchParams({ cursor: page.next_cursor }));
  }
}

/** The monitor must be the API key's workspace's (GET /monitors/{id}); throws otherwise. */
async function checkMonitor(o: ListenOptions, id: string): Promise<void> {
  const res = await fetch(`${o.apiUrl.replace(/\/+$/, '')}/api/v1/monitors/${encodeURIComponent(id)}`, {
    headers: { Authorization: `Bearer ${o.apiKey}` },
    signal: AbortSignal.timeout(o.timeoutMs),
  });
  const body = (await res.json()) as { error?: string; code?: string };
  if (res.status !== 200) throw new ListenError(`GET /monitors/${id} answered ${res.status} ${body.code ?? ''}: ${body.error ?? ''}`);
}

/**
 * The monitor's signing secrets (current first, as a real delivery signs), read the way the
 * server's delivery worker reads them: from its database, decrypted with its server key. Only an
 * operator running listen where the server's configuration is (DATABASE_URL set, and the server key
 * in WEBHOOK_SECRET_KEY or DATA_DIR's key file) can; otherwise why not, for the start line. The
 * key file is never created here (loadServerKeys would): a new key could decrypt nothing.
 */
async function monitorSecrets(io: CliIo, id: string): Promise<{ secrets: string[] } | { reason: string }> {
  if (!io.env.DATABASE_URL) return { reason: 'DATABASE_URL is not set' };
  const config = load.config().loadConfig(io.env);
  if (!config.webhooks.secretKey && !fs.existsSync(path.join(config.dataDir, 'webhook-secret.key')))
    return { reason: 'the server key is not here (WEBHOOK_SECRET_KEY, or webhook-secret.key in DATA_DIR)' };
  try {
    const keys = lazy.secrets().loadServerKeys({ key: config.webhooks.secretKey, previous: config.webhooks.previousSecretKeys, dataDir: config.dataDir });
    const secrets = await withDatabase(io, (db) => lazy.monitors().signingSecrets({ db, keys }, id), { migrate: false });
    return { secrets };
  } catch (err) {
    return { reason: `the server's database or key did not give it (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The secrets to sign with, and the start line that says which and why. */
async function chooseSecrets(o: ListenOptions, io: CliIo): Promise<{ secrets: string[]; line: string }> {
  if (o.secret) return { secrets: [o.secret], line: `Signing secret: ${o.secret} (given)` };
  let why = '';
  if (o.monitor) {
    await checkMonitor(o, o.monitor);
    const own = await monitorSecrets(io, o.monitor);
    if ('secrets' in own)
      return { secrets: own.secrets, line: `Signing secret: monitor ${o.monitor}'s own (read from the server's database; not shown: verify with the secret you saved)` };
    why = `\n  Not the monitor's own secret: the API never returns it, and as the operator ${own.reason}. Pass --secret whsec_... to sign with it.`;
  }
  const secret = lazy.secrets().generateWebhookSecret();
  return { secrets: [secret], line: `Signing secret: ${secret} (generated for this session; verify with it)${why}` };
}

/** Runs until `signal` aborts. Returns when stopped; throws when the API refuses (bad key, etc.). */
export async function listen(o: ListenOptions, io: CliIo, signal: AbortSignal): Promise<void> {
  const { secrets, line } = await chooseSecrets(o, io);
  io.stdout.write(`Forwarding events to ${o.forwardTo}\n`);
  io.stdout.write(`${line}\n`);
  let last = o.from;
  if (!last) for await (const e of eventsAfter(o, undefined)) last = e.id;
  io.stdout.write(`Ready: waiting for events${o.monitor ? ` of monitor ${o.monitor}` : ''}${o.events?.length ? ` (${o.events.join(', ')})` : ''}. Ctrl-C to stop.\n`);
  const { webhookHeaders } = lazy.signing();
  while (!signal.aborted) {
    for await (const event of eventsAfter(o, last)) {
      // The stored body's bytes: JSON.parse then stringify keeps the key order and the values.
      const body = JSON.stringify(event);
      const headers = webhookHeaders(secrets, event.id, Math.floor(Date.now() / 1000), body);
      let status: string;
      try {
        const res = await fetch(o.forwardTo, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          signal: AbortSignal.timeout(o.timeoutMs),
        });
        await res.arrayBuffer();
        status = String(res.status);
      } catch (err) {
        status = `error: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
      }
      io.stdout.write(`${new Date().toISOString()}  ${event.event}  ${event.id}  -> ${status}\n`);
      last = event.id;
      if (signal.aborted) return;
    }
    // One listener per wait, removed when the wait ends: a listener left on the long-lived signal
    // at every poll would pile up (Node warns past 10).
    await new Promise<void>((resolve) => {
      const onAbort = () => (clearTimeout(t), resolve());
      const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), o.intervalMs);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

export function registerListenCommand(program: Command, io: CliIo): void {
  program
    .command('listen')
    .description('Forward the workspace\'s events to a local URL, signed like real webhook deliveries (polls GET /events with an API key)')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://127.0.0.1:4000/webhooks')
    .option('--api-key <key>', 'the workspace API key (default: $ENRICH_API_KEY)')
    .option('--api-url <base>', 'where the server is reached (default http://127.0.0.1:$PORT)')
    .option('--monitor <id>', 'only this monitor\'s events')
    .option('--events <types...>', 'only these event types, e.g. person.job_changed monitor.test')
    .option(
      '--secret <whsec>',
      "sign with this secret. Without it: with --monitor, the monitor's own secret when run as the operator where the server's DATABASE_URL and server key are (the API never returns a monitor's secret, so an API key alone cannot); otherwise a secret generated for the session and printed",
    )
    .option('--from <event-id>', 'start right after this event instead of at the end of the feed')
    .option('--interval <ms>', 'polling interval', '1000')
    .action(async (opts: { forwardTo: string; apiKey?: string; apiUrl?: string; monitor?: string; events?: string[]; secret?: string; from?: string; interval: string }) => {
      const apiKey = opts.apiKey ?? io.env.ENRICH_API_KEY;
      if (!apiKey) throw new ListenError('an API key is needed: --api-key or ENRICH_API_KEY');
      const config = load.config().loadConfig(io.env);
      const apiUrl = opts.apiUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await listen(
          { forwardTo: opts.forwardTo, apiUrl, apiKey, monitor: opts.monitor, events: opts.events, secret: opts.secret, from: opts.from, intervalMs: Math.max(100, Number(opts.interval) || 1000), timeoutMs: 15_000 },
          io,
          controller.signal,
        );
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
