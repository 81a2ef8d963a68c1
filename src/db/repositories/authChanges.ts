/**
 * The channel on which operator changes to keys, accounts and workspaces are announced to every
 * running instance: PostgreSQL LISTEN/NOTIFY. What a message means is the authenticator's business
 * (domain/auth/authenticator.ts); this module only carries the text.
 */
import pg from 'pg';
import type { Knex } from 'knex';

const AUTH_CHANNEL = 'enrich_auth_changed';

/** Sent when `db`'s transaction commits (NOTIFY is transactional), at once outside one. */
export async function notifyAuthChanged(db: Knex, payload: string): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [AUTH_CHANNEL, payload]);
}

export interface AuthChangeSubscription {
  close(): Promise<void>;
}

/**
 * Listens on a connection of its own. When the connection is lost, messages may have been missed:
 * `onLost` is told, and the subscription is made again a second later.
 */
export async function listenForAuthChanges(
  databaseUrl: string,
  handlers: { onMessage: (payload: string | undefined) => void; onLost: (err: unknown) => void },
): Promise<AuthChangeSubscription> {
  let closed = false;
  let client: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: 'enrich-auth-listener' });
    next.on('notification', (message) => handlers.onMessage(message.payload));
    next.on('error', (err) => {
      handlers.onLost(err);
      next.end().catch(() => undefined);
      if (!closed) setTimeout(() => listen().catch(handlers.onLost), 1000).unref();
    });
    await next.connect();
    await next.query(`listen ${AUTH_CHANNEL}`);
    client = next;
  };
  await listen();
  return {
    close: async () => {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
