/**
 * The channel on which operator changes to keys, accounts and workspaces are announced to every
 * running instance: PostgreSQL LISTEN/NOTIFY. What a message means is the authenticator's business
 * (domain/auth/authenticator.ts); this module only carries the text, and keeps the channel open.
 */
import pg, { type Client } from '../pg';
import type { Knex } from 'knex';

const AUTH_CHANNEL = 'enrich_auth_changed';

/** Sent when `db`'s transaction commits (NOTIFY is transactional), at once outside one. */
export async function notifyAuthChanged(db: Knex, payload: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [AUTH_CHANNEL, payload]);
}

export interface AuthChangeSubscription {
  /** Whether the channel is listening now (messages may be missed while it is not). */
  readonly listening: boolean;
  /** Settles after the first attempt to listen, whatever its outcome. */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

export interface ChannelTiming {
  /** First reconnection delay; doubled after each failed attempt up to maxBackoffMs (with jitter). */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A `select 1` on the listening connection this often, so a silent dead connection is noticed. */
  heartbeatMs: number;
  /** Connection handshake and heartbeat give up after this. */
  timeoutMs: number;
}

const DEFAULT_TIMING: ChannelTiming = { initialBackoffMs: 250, maxBackoffMs: 10_000, heartbeatMs: 10_000, timeoutMs: 5_000 };

/**
 * Listens on a connection of its own, forever: when the connection is lost (server restart, network,
 * a heartbeat with no answer) `onLost` is told once, and the subscription is made again with
 * exponential backoff until it succeeds, which `onRestored` is told. Never gives up; only close()
 * ends it. Returns at once: a channel that cannot listen yet starts in the lost state.
 */
export function listenForAuthChanges(
  databaseUrl: string,
  handlers: ChannelHandlers,
  timing: Partial<ChannelTiming> = {},
): AuthChangeSubscription {
  return listenOnChannel(databaseUrl, AUTH_CHANNEL, 'enrich-auth-listener', handlers, timing);
}

export interface ChannelHandlers {
  onMessage: (payload: string | undefined) => void;
  onLost: (err: unknown) => void;
  onRestored: () => void;
}

/**
 * The same for any channel (the event feed's sequencer wakes on one: eventFeed.ts): listens on a
 * connection of its own (`applicationName`, so an operator can tell it apart), reconnects forever.
 * `channel` is a constant of ours, never input (LISTEN takes no parameter).
 */
export function listenOnChannel(
  databaseUrl: string,
  channel: string,
  applicationName: string,
  handlers: ChannelHandlers,
  timing: Partial<ChannelTiming> = {},
): AuthChangeSubscription {
  const t = { ...DEFAULT_TIMING, ...timing };
  let closed = false;
  let listening = false;
  /** True from the first loss until the next successful LISTEN (onLost is told once per outage). */
  let lost = false;
  let client: Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let attempt = 0;

  const markLost = (err: unknown) => {
    listening = false;
    if (heartbeatTimer) clearInterval(heartbeatTimer);
    heartbeatTimer = undefined;
    if (!lost) {
      lost = true;
      handlers.onLost(err);
    }
  };

  const scheduleRetry = () => {
    if (closed || retryTimer) return;
    const base = Math.min(t.maxBackoffMs, t.initialBackoffMs * 2 ** attempt);
    attempt += 1;
    // Jitter, so a fleet of instances does not reconnect in lockstep after a database restart.
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, base / 2 + Math.random() * (base / 2));
    retryTimer.unref();
  };

  const drop = (which: Client, err: unknown) => {
    if (which !== client) return;
    client = undefined;
    which.removeAllListeners('notification');
    which.end().catch(() => undefined);
    markLost(err);
    scheduleRetry();
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({
      connectionString: databaseUrl,
      application_name: applicationName,
      connectionTimeoutMillis: t.timeoutMs,
      keepAlive: true,
    });
    client = next;
    next.on('notification', (message) => handlers.onMessage(message.payload));
    // Registered before connect: a pg Client without an 'error' listener crashes the process.
    next.on('error', (err) => drop(next, err));
    next.on('end', () => drop(next, new Error('listening connection ended')));
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (err) {
      drop(next, err);
      return;
    }
    if (closed || client !== next) {
      await next.end().catch(() => undefined);
      return;
    }
    attempt = 0;
    listening = true;
    heartbeatTimer = setInterval(() => {
      const timeout = new Promise((_resolve, reject) => setTimeout(() => reject(new Error('heartbeat timed out')), t.timeoutMs).unref());
      Promise.race([next.query('select 1'), timeout]).catch((err) => {
        // A connection that does not answer is as good as lost; ending it stops its socket too.
        (next as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        drop(next, err);
      });
    }, t.heartbeatMs);
    heartbeatTimer.unref();
    if (lost) {
      lost = false;
      handlers.onRestored();
    }
  };

  const started = connect();
  return {
    get listening() {
      return listening;
    },
    started,
    close: async () => {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
