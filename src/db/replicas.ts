/**
 * The read side of a primary with streaming standbys (DATABASE_READ_URL): where each lake read runs.
 *
 * `LakeReads.run(workspaceId, read)` runs a read-only function on a standby that is up and no more
 * than DATABASE_READ_MAX_LAG_SECONDS behind, else on the primary. Only lake reads come here
 * (lookups, checks, search, lists, bulk, history); writes, metering, locks, the LISTEN channel, queues,
 * sessions, idempotency and migrations use the primary's pools directly, so nothing on a standby
 * ever writes, locks or listens.
 *
 * - Lag: every DATABASE_READ_PROBE_MS each standby is asked how far behind it is (LAG_SQL), bounded
 *   by READINESS_TIMEOUT_MS; no answer in time is `down`. A probe in flight is never doubled, so a
 *   stalled standby holds at most one probe connection.
 * - Down mid-request: a read that fails because the standby is unreachable, stopped, stalled past the
 *   guard or in conflict with recovery runs again on the primary (reads are idempotent), and the
 *   standby is not used until a probe finds it back: no 5xx for a lost standby, no restart to return.
 * - Read-your-writes: a realtime write-back pins its workspace's lake reads to the primary for
 *   `pinMs` (the lag bound plus one probe period and one probe timeout: by then every standby in use
 *   has replayed the write, see pinMs()). Per workspace rather than per subject, so searches and
 *   lists that contain the subject see the write too.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import { classifyDatabaseError, DatabaseUnavailableError } from './errors';
import { createKnex, type DatabaseTimeouts } from './knex';

/** Where a workspace's lake reads run. */
export interface LakeReads {
  run<T>(workspaceId: string | undefined, read: (db: Knex) => Promise<T>): Promise<T>;
  /** After a write the caller must see on its next read (a realtime write-back). */
  pin(workspaceId: string): void;
  /** Each standby's state as of its last probe (readiness, metrics); empty without standbys. */
  states(): ReplicaState[];
}

export type ReplicaUse = 'in_use' | 'lagging' | 'down';

export interface ReplicaState {
  /** `replica_<n>`: the standby's position in DATABASE_READ_URL (its address is never shown to clients). */
  name: string;
  state: ReplicaUse;
  /** Replay lag in seconds at the last probe; null while unknown (down, or not measured yet). */
  lag_seconds: number | null;
}

/** Every read on the primary: one PostgreSQL, or no DATABASE_READ_URL. */
export function primaryReads(primary: Knex): LakeReads {
  return {
    run: (_workspaceId, read) => read(primary),
    pin: () => undefined,
    states: () => [],
  };
}

/**
 * The standby's replay lag in seconds: 0 when it has replayed everything it received (an idle
 * primary sends nothing, and its standby is not "behind" it), else the age of the last transaction
 * it replayed: everything committed on the primary before that moment is visible on the standby.
 * A server that is not in recovery (a promoted standby) is 0. Null: nothing replayed since start.
 */
const LAG_SQL = `select case
    when not pg_is_in_recovery() then 0
    when pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn() then 0
    else greatest(0, extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()))::float8
  end as lag_seconds`;

export interface ReplicaOptions {
  maxLagSeconds: number;
  probeMs: number;
  probeTimeoutMs: number;
  poolMax: number;
  /** The request pool's statement and acquire timeouts: a standby's reads are bounded the same way. */
  timeouts: DatabaseTimeouts;
  /** Told when a standby changes state (logged by the server). */
  onChange?: (name: string, state: ReplicaUse, detail: { lag_seconds: number | null; error?: string }) => void;
  now?: () => number;
}

interface Replica {
  name: string;
  knex: Knex;
  state: ReplicaUse;
  lag: number | null;
  probing: boolean;
}

/**
 * The read pool's connection string: application_name `enrich-read` (unless it names its own), so a
 * standby's pg_stat_activity shows who reads, and every transaction read-only
 * (default_transaction_read_only), so nothing on this pool can write even when the URL names a
 * writable server by mistake (LISTEN and advisory locks are simply never sent on it: only
 * LakeReads.run and the lag probe use it).
 */
export function readConnectionString(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('application_name')) u.searchParams.set('application_name', 'enrich-read');
  const options = u.searchParams.get('options');
  u.searchParams.set('options', `${options ? `${options} ` : ''}-c default_transaction_read_only=on`);
  return u.toString();
}

export class ReadReplicas implements LakeReads {
  private readonly replicas: Replica[];
  private readonly pins = new Map<string, number>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly primary: Knex,
    urls: readonly string[],
    private readonly opts: ReplicaOptions,
  ) {
    this.now = opts.now ?? Date.now;
    // Down until the first probe answers: no read goes to a standby nobody has measured.
    this.replicas = urls.map((url, i) => ({
      name: `replica_${i + 1}`,
      knex: createKnex(readConnectionString(url), opts.poolMax, opts.timeouts),
      state: 'down',
      lag: null,
      probing: false,
    }));
  }

  /**
   * How long a write-back pins its workspace to the primary. A standby in use was at most
   * maxLagSeconds behind at its last probe, which started at most probeMs + probeTimeoutMs ago, and
   * replay only moves forward: a write older than the sum is on every standby in use.
   */
  get pinMs(): number {
    return this.opts.maxLagSeconds * 1000 + this.opts.probeMs + this.opts.probeTimeoutMs;
  }

  /** Probes every standby now, then every probeMs. */
  async start(): Promise<void> {
    await this.probeAll();
    this.timer = setInterval(() => void this.probeAll(), this.opts.probeMs);
    this.timer.unref();
  }

  async run<T>(workspaceId: string | undefined, read: (db: Knex) => Promise<T>): Promise<T> {
    const replica = this.choose(workspaceId);
    if (!replica) return read(this.primary);
    try {
      return await read(replica.knex);
    } catch (err) {
      const fault = standbyFault(err);
      if (!fault) throw err;
      if (fault === 'down') this.set(replica, 'down', null, err);
      return read(this.primary);
    }
  }

  pin(workspaceId: string): void {
    if (this.replicas.length) this.pins.set(workspaceId, this.now() + this.pinMs);
  }

  states(): ReplicaState[] {
    return this.replicas.map((r) => ({ name: r.name, state: r.state, lag_seconds: r.lag === null ? null : Math.round(r.lag * 1000) / 1000 }));
  }

  /** Standbys in use, in turn; undefined = the primary (none in use, or the workspace is pinned). */
  private choose(workspaceId: string | undefined): Replica | undefined {
    if (workspaceId !== undefined && this.pins.size) {
      const until = this.pins.get(workspaceId);
      if (until !== undefined) {
        if (until > this.now()) return undefined;
        this.pins.delete(workspaceId);
      }
    }
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if (replica.state === 'in_use') {
        this.next = (this.next + i + 1) % this.replicas.length;
        return replica;
      }
    }
    return undefined;
  }

  private async probeAll(): Promise<void> {
    const now = this.now();
    for (const [workspace, until] of this.pins) if (until <= now) this.pins.delete(workspace);
    await Promise.all(this.replicas.map((r) => this.probe(r)));
  }

  private async probe(replica: Replica): Promise<void> {
    if (replica.probing) return;
    replica.probing = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DatabaseUnavailableError('timeout')), this.opts.probeTimeoutMs);
      });
      const query = replica.knex.raw<{ rows: { lag_seconds: number | null }[] }>(LAG_SQL);
      // The query itself ends by the pool's guard; a late answer is dropped here.
      query.catch(() => undefined);
      const { rows } = await Promise.race([query, timedOut]);
      const lag = rows[0]?.lag_seconds ?? null;
      this.set(replica, lag !== null && lag <= this.opts.maxLagSeconds ? 'in_use' : 'lagging', lag);
    } catch (err) {
      this.set(replica, 'down', null, err);
    } finally {
      clearTimeout(timer);
      replica.probing = false;
    }
  }

  private set(replica: Replica, state: ReplicaUse, lag: number | null, err?: unknown): void {
    replica.lag = lag;
    if (replica.state === state) return;
    replica.state = state;
    this.opts.onChange?.(replica.name, state, { lag_seconds: lag, ...(err ? { error: err instanceof Error ? err.message : String(err) } : {}) });
  }

  /** The standbys' lag and use as gauges in `registry` (/metrics), read at each scrape. */
  observe(registry: Registry): void {
    const states = () => this.states();
    new Gauge({
      name: 'enrich_db_replica_lag_seconds',
      help: 'Replay lag of each read replica at its last probe (absent while it does not answer)',
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of states()) if (s.lag_seconds !== null) this.set({ replica: s.name }, s.lag_seconds);
      },
    });
    new Gauge({
      name: 'enrich_db_replica_in_use',
      help: '1 while a read replica serves lake reads; 0 while it is down or lags past DATABASE_READ_MAX_LAG_SECONDS (reads then go to the primary)',
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        for (const s of states()) this.set({ replica: s.name }, s.state === 'in_use' ? 1 : 0);
      },
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.knex.destroy()));
  }
}

/**
 * Whether a failed read is the standby's fault and runs again on the primary: `down` when the
 * standby cannot be reached, was shut down or did not answer within the guard (then it is not used
 * until a probe finds it back); `retry` for a read cancelled by a conflict with recovery (40001) or a
 * full pool. Anything else (a statement timeout, a bug, a bad value) is the read's own and passes.
 */
function standbyFault(err: unknown): 'down' | 'retry' | undefined {
  if (err instanceof DatabaseUnavailableError) return err.reason === 'pool_timeout' ? 'retry' : 'down';
  if (classifyDatabaseError(err) !== 'unavailable') return undefined;
  const code = (err as { code?: string }).code ?? '';
  if (code === '57014') return undefined;
  if (code === '40001') return 'retry';
  return 'down';
}
