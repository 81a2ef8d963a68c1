import type { Knex } from 'knex';
import { KnexClientPg, knexFactory, KnexTimeoutError } from './knexLibrary';
import pg from './pg';
import type { Config } from '../config';
import { databaseUrl, startEmbeddedPostgres, type EmbeddedDatabase } from './embedded';
import { DatabaseUnavailableError } from './errors';
import { migrationSource } from './migrations';

export type { Knex };

// int8 (count(*), bigserial) arrives as a string by default; every count we return fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// numeric (money amounts) to number; amounts here are small decimal sums.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** Bounds of the request path: no query and no wait for a connection lasts longer than these. */
export interface DatabaseTimeouts {
  /** PostgreSQL cancels a statement after this (SQLSTATE 57014); the client gives up GUARD_MARGIN_MS later. */
  statementTimeoutMs: number;
  /** Longest wait for a pooled connection, and for a new connection's handshake. */
  acquireTimeoutMs: number;
}

/**
 * How much later than the server's statement_timeout the client itself gives up on a query. The
 * server's cancellation keeps the connection usable; the client's guard is for a server that does
 * not answer at all (stopped process, lost network), and closes the connection.
 */
const GUARD_MARGIN_MS = 1000;

type PgConnection = import('pg').Client & { connection: { stream: { destroy(err?: Error): void } } };
interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
  response?: unknown;
}
type KnexClientClass = new (config: Knex.Config) => Knex.Client;

const LOST = Symbol('connection lost');
type Tracked = PgConnection & { [LOST]?: boolean };

/** The parts of tarn's pool (knex's pool) the warm stack talks to. */
interface TarnPool {
  release(resource: unknown): boolean;
  numPendingAcquires(): number;
}

/** How long a connection may sit in the warm stack before it goes back to the pool (and its idle reaping). */
const WARM_IDLE_MS = 1000;

/**
 * knex's PostgreSQL client with the failures of the database turned into DatabaseUnavailableError
 * (errors/classifyDatabaseError): a connection that cannot be made, a query the server does not
 * answer within the guard, a connection lost mid-query, a pool that has no connection to give.
 * SQL errors the server reports (SQLSTATE) pass through untouched.
 *
 * In front of knex's pool (tarn) sits a **warm stack** of connections released while nobody was
 * waiting for one: the next acquire takes one from it at once, without tarn's per-acquire work
 * (two timed pending operations, an asynchronous validation, several promise chains: the largest
 * share of a prepared lookup's database-side CPU in the process). A connection goes back to the
 * pool itself when someone is waiting in it (so the pool's queue is served first and nothing
 * starves), when it was lost (the pool's validation then destroys it), and after WARM_IDLE_MS
 * unused (so the pool's idle reaping still applies). Connections in the stack count as in use for
 * the pool, so its maximum still bounds them all; destroy() hands them back first.
 */
function guardedClientClass(timeouts: DatabaseTimeouts | undefined): KnexClientClass {
  // The dialect class is not part of knex's typings; it is the class knex uses for client: 'pg'.
  const ClientPg = KnexClientPg;
  const base = ClientPg.prototype as unknown as {
    _acquireOnlyConnection(): Promise<Tracked>;
    _query(c: Tracked, o: KnexQuery): Promise<KnexQuery>;
    acquireConnection(): Promise<Tracked>;
    releaseConnection(c: Tracked): Promise<void>;
    destroy(callback?: () => void): Promise<void>;
  };
  const guardMs = timeouts ? timeouts.statementTimeoutMs + GUARD_MARGIN_MS : 0;
  class GuardedClientPg extends ClientPg {
    async _acquireOnlyConnection(): Promise<Tracked> {
      let connection: Tracked;
      try {
        connection = await base._acquireOnlyConnection.call(this);
      } catch (err) {
        // A server that answers "no" (wrong password, unknown database) is a configuration error,
        // shown as such; anything else (refused, reset, handshake timed out) is an outage.
        if (err instanceof pg.DatabaseError && !/^(08|53|57)/.test(err.code ?? '')) throw err;
        throw new DatabaseUnavailableError('connect', err);
      }
      const lost = () => {
        connection[LOST] = true;
      };
      connection.on('error', lost);
      connection.on('end', lost);
      return connection;
    }

    _query(connection: Tracked, obj: KnexQuery): Promise<KnexQuery> {
      const run = base._query.call(this, connection, obj);
      if (!guardMs) return run.catch((err) => Promise.reject(lostOrSql(connection, err)));
      return new Promise<KnexQuery>((resolve, reject) => {
        const timer = setTimeout(() => {
          // The server did not answer: the connection is unusable (its reply may still come, out
          // of step with the next query), so it is closed and the pool replaces it.
          giveUp(connection);
          reject(new DatabaseUnavailableError('timeout'));
        }, guardMs);
        run.then(
          (result) => {
            clearTimeout(timer);
            resolve(result);
          },
          (err) => {
            clearTimeout(timer);
            reject(lostOrSql(connection, err));
          },
        );
      });
    }

    /** The warm stack of this client's pool (undefined once destroyed). */
    private get stack(): WarmStack | undefined {
      return warmStackOf((this as unknown as { pool?: TarnPool }).pool);
    }

    /** A connection from the warm stack, if one is there and usable (no promise, no pool work). */
    takeWarm(): Tracked | undefined {
      return this.stack?.take();
    }

    async acquireConnection(): Promise<Tracked> {
      const warm = this.takeWarm();
      if (warm) return warm;
      try {
        return await base.acquireConnection.call(this);
      } catch (err) {
        if (err instanceof KnexTimeoutError) throw new DatabaseUnavailableError('pool_timeout', err);
        throw err;
      }
    }

    releaseConnection(connection: Tracked): Promise<void> {
      this.putBack(connection);
      return Promise.resolve();
    }

    /** Back to the warm stack, or to the pool when someone waits there (or the connection is lost). */
    putBack(connection: Tracked): void {
      this.stack?.put(connection);
    }

    async destroy(callback?: () => void): Promise<void> {
      // Every connection of the stack back to the pool first: tarn's destroy waits for all it lent.
      this.stack?.close();
      return base.destroy.call(this, callback);
    }

    /**
     * A named statement on a pooled connection, straight to pg: one promise, one guard timer, no
     * knex query object (its options merge) and no copy of the query config by pg.
     */
    prepared<R>(name: string, text: string, values: unknown[]): Promise<R[]> {
      const warm = this.takeWarm();
      if (warm) return this.runPrepared<R>(warm, name, text, values);
      return this.acquireConnection().then((connection) => this.runPrepared<R>(connection, name, text, values));
    }

    private runPrepared<R>(connection: Tracked, name: string, text: string, values: unknown[]): Promise<R[]> {
      return new Promise<R[]>((resolve, reject) => {
        let settled = false;
        const timer = guardMs
          ? setTimeout(() => {
              settled = true;
              giveUp(connection);
              this.putBack(connection);
              reject(new DatabaseUnavailableError('timeout'));
            }, guardMs)
          : undefined;
        // A Query built from the text (pg copies a config object on every call; a string it does not).
        const query = new PgQuery(text, values, (err: unknown, result: { rows: R[] }) => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          this.putBack(connection);
          if (err) reject(lostOrSql(connection, err));
          else resolve(result.rows);
        });
        query.name = name;
        try {
          connection.query(query as never);
        } catch (err) {
          settled = true;
          if (timer) clearTimeout(timer);
          this.putBack(connection);
          reject(lostOrSql(connection, err));
        }
      });
    }
  }
  return GuardedClientPg as unknown as KnexClientClass;
}

/**
 * The warm stack of one tarn pool. It belongs to the **pool**, not to the knex client object:
 * knex clones its client for `withUserParams` (the migrator does, on every `migrate.latest()`) by
 * copying its fields, so a stack kept in a client field was copied too, and connections released
 * through the clone went into a stack that the original's destroy() never emptied. tarn's destroy
 * then waited for them until the clone's idle timer handed them back: every CLI command waited
 * ~2 s (two WARM_IDLE_MS ticks) after its last query. Keyed by the pool, every clone and the
 * original share one stack, and a new pool (knex.initialize() after destroy) gets a new one.
 */
class WarmStack {
  private entries: { connection: Tracked; at: number }[] = [];
  private trimTimer: NodeJS.Timeout | undefined;
  /** Set by close(): the pool is being destroyed and waits for every connection it lent. */
  private closed = false;

  constructor(private readonly pool: TarnPool) {}

  take(): Tracked | undefined {
    while (this.entries.length) {
      const { connection } = this.entries.pop()!;
      if (!unusable(connection)) return connection;
      this.pool.release(connection);
    }
    return undefined;
  }

  put(connection: Tracked): void {
    if (this.closed || unusable(connection) || this.pool.numPendingAcquires() > 0) {
      this.pool.release(connection);
      return;
    }
    this.entries.push({ connection, at: Date.now() });
    if (!this.trimTimer) {
      this.trimTimer = setInterval(() => this.trim(Date.now() - WARM_IDLE_MS), WARM_IDLE_MS);
      this.trimTimer.unref();
    }
  }

  /** How many connections wait in the stack (tests). */
  get size(): number {
    return this.entries.length;
  }

  close(): void {
    this.closed = true;
    this.trim(Infinity);
  }

  /** Connections unused since `before` (all of them for Infinity) go back to the pool. */
  private trim(before: number): void {
    const keep: { connection: Tracked; at: number }[] = [];
    for (const entry of this.entries) {
      if (entry.at < before || unusable(entry.connection)) this.pool.release(entry.connection);
      else keep.push(entry);
    }
    this.entries = keep;
    if (!keep.length && this.trimTimer) {
      clearInterval(this.trimTimer);
      this.trimTimer = undefined;
    }
  }
}

const warmStacks = new WeakMap<TarnPool, WarmStack>();

function warmStackOf(pool: TarnPool | undefined): WarmStack | undefined {
  if (!pool) return undefined;
  let stack = warmStacks.get(pool);
  if (!stack) {
    stack = new WarmStack(pool);
    warmStacks.set(pool, stack);
  }
  return stack;
}

/** Connections waiting in the warm stack of a knex instance's pool (tests). */
export function warmConnections(db: Knex): number {
  return warmStackOf((db.client as { pool?: TarnPool }).pool)?.size ?? 0;
}

type PgQueryInstance = { name?: string };
// pg's Query class (exported at runtime, not in its typings as a constructor with a callback).
const PgQuery = (pg as unknown as { Query: new (text: string, values: unknown[], cb: (err: unknown, result: never) => void) => PgQueryInstance }).Query;

/** The server did not answer in time: mark the connection lost and close it (the pool replaces it). */
function giveUp(connection: Tracked): void {
  connection[LOST] = true;
  connection.connection.stream.destroy();
}

function unusable(connection: Tracked): boolean {
  return Boolean(connection[LOST] || (connection as { __knex__disposed?: unknown }).__knex__disposed);
}

/** A query error: the server's own (SQLSTATE) as is; a driver error on a dead connection is an outage. */
function lostOrSql(connection: Tracked, err: unknown): unknown {
  if (err instanceof pg.DatabaseError || err instanceof DatabaseUnavailableError) return err;
  return connection[LOST] ? new DatabaseUnavailableError('connection_lost', err) : err;
}

/** Where knex's migrator records the migrations applied (migrateLatest reads it first). */
const MIGRATIONS_TABLE = 'knex_migrations';

/**
 * A knex instance. With `timeouts` (the server's request path) every statement is bounded
 * (statement_timeout on the server, a guard on the client) and so is the wait for a connection;
 * without (migrations, the operator CLI, imports) long statements are allowed.
 */
export function createKnex(connectionString: string, poolMax = 10, timeouts?: DatabaseTimeouts): Knex {
  return knexFactory({
    client: guardedClientClass(timeouts) as unknown as typeof Knex.Client,
    connection: {
      connectionString,
      application_name: 'enrich',
      ...(timeouts
        ? {
            statement_timeout: timeouts.statementTimeoutMs,
            lock_timeout: timeouts.statementTimeoutMs,
            connectionTimeoutMillis: timeouts.acquireTimeoutMs,
          }
        : {}),
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: poolMax },
    ...(timeouts ? { acquireConnectionTimeout: timeouts.acquireTimeoutMs } : {}),
    migrations: { migrationSource, tableName: MIGRATIONS_TABLE },
  });
}

/**
 * A named (server-side prepared) statement on a pooled connection, for the hot single-row lookups:
 * PostgreSQL parses and plans it once per connection instead of on every request, which on a
 * machine shared with the server is CPU taken from the requests themselves. It is bounded like
 * every other statement: the server's statement_timeout and the client's guard timer, which
 * closes a connection the server does not answer on (GuardedClientPg.prepared).
 */
export function preparedQuery<R>(db: Knex, name: string, text: string, values: unknown[]): Promise<R[]> {
  const client = db.client as unknown as { prepared?<T>(name: string, text: string, values: unknown[]): Promise<T[]> };
  // createKnex's client: straight to pg on a connection of its pool, with the same guard.
  if (!db.isTransaction && client.prepared) return client.prepared<R>(name, text, values);
  return preparedQueryThroughKnex<R>(db, name, text, values);
}

async function preparedQueryThroughKnex<R>(db: Knex, name: string, text: string, values: unknown[]): Promise<R[]> {
  if (db.isTransaction) return (await db.raw(text.replace(/\$[0-9]+/g, '?'), values as Knex.RawBinding[])).rows as R[];
  const client = db.client as unknown as {
    acquireConnection(): Promise<unknown>;
    releaseConnection(c: unknown): Promise<void>;
    _query(c: unknown, q: KnexQuery): Promise<KnexQuery>;
  };
  const connection = await client.acquireConnection();
  try {
    const done = await client._query(connection, { sql: text, bindings: values, options: { name } });
    return (done.response as { rows: R[] }).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Brings the schema up to date; returns the migrations applied (none when it was).
 *
 * First the one question that usually settles it: are exactly the known migrations recorded as
 * applied? One plain read (under a millisecond). Only when they are not (a new database, a pending
 * migration, a database newer than this code, which knex's migrator then refuses as before) does
 * knex's migrator run: its check when nothing is pending is 13 statements and a committed
 * transaction (its lock row), 60-150 ms of every CLI command and server start on a busy machine.
 */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  if (await schemaIsCurrent(knex)) return [];
  const [, applied] = await knex.migrate.latest();
  return applied as string[];
}


async function schemaIsCurrent(knex: Knex): Promise<boolean> {
  const known = await migrationSource.getMigrations([]);
  let recorded: { name: string }[];
  try {
    recorded = await knex(MIGRATIONS_TABLE).select('name');
  } catch (err) {
    // No migrations table yet (a new database): the migrator creates it.
    if ((err as { code?: string }).code === '42P01') return false;
    throw err;
  }
  const names = new Set(recorded.map((r) => r.name));
  return names.size === known.length && known.every((name) => names.has(name));
}

export interface Database {
  knex: Knex;
  url: string;
  embedded?: EmbeddedDatabase;
  close(): Promise<void>;
}

const EMBEDDED_DATABASE = 'enrich';

/** DATABASE_URL when set; otherwise the embedded server under <dataDir>/postgres with database `enrich`. */
export async function openDatabase(config: Config, log?: (line: string) => void, warn?: (line: string) => void): Promise<Database> {
  if (config.databaseUrl) {
    const knex = createKnex(config.databaseUrl);
    return { knex, url: config.databaseUrl, close: () => knex.destroy() };
  }
  const embedded = await startEmbeddedPostgres({ dir: `${config.dataDir}/postgres`, port: config.embeddedPgPort, log, warn });
  await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  const url = databaseUrl(embedded.adminUrl, EMBEDDED_DATABASE);
  const knex = createKnex(url);
  return {
    knex,
    url,
    embedded,
    close: async () => {
      await knex.destroy();
      await embedded.stop();
    },
  };
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database ${pg.escapeIdentifier(name)}`).catch((err: { code?: string }) => {
        // 42P04 duplicate_database: another process created it between our check and create.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  } finally {
    await client.end();
  }
}
