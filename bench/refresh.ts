/**
 * npm run bench:refresh — records re-verified per second by the background refresh on the
 * 1,000,000-person lake of bench:lookup, with 1 and then 2 worker processes, against `enrich
 * live-sim` (another process) holding the same world 30 simulated days later, so part of the
 * records changed: each changed record is rewritten and its changes logged, the rest only get a
 * new fetched_at. Prints records/s in all and per worker, and the change-log entries written.
 *
 * The same path on every run: each run (each worker count, each invocation) works on a fresh copy
 * of the built lake (`<bench database>_refresh`, CREATE DATABASE ... TEMPLATE, dropped after), so it
 * is always the first pass over the same lake; the built lake itself is never written here. Before,
 * runs went on where the last one stopped and, once the lake had been passed over, measured mostly
 * "unchanged" re-verifications instead of the first pass. The output says which path it measured.
 *
 * Every worker count runs `--rounds` times (alternating: 1, 2, 4, 1, 2, 4, ...) and the figures are
 * the medians. `--baseline=<checkout>` runs the worker of another checkout of this repository (for
 * example `git worktree add /tmp/base main`) in the same run, alternating with this one, on the
 * same fresh copies: the two side by side with their ratio. With `--baseline-database=<name>` the
 * baseline works on copies of that database's lake instead: a lake the baseline checkout built with
 * its own migrations (run its bench:refresh once with BENCH_DATABASE=<name>), for a change of the
 * schema or the storage, which the baseline's code on this checkout's lake would not show.
 *
 * Everything shares the machine: PostgreSQL, the simulator and the workers. Options:
 * --persons=1000000 --companies=100000 --seconds=30 --days=30 --workers=1,2,4 --rounds=3 --baseline=<dir> --baseline-database=<name>
 *
 * Each run also prints the CPU time per 1,000 records of the workers, the simulator and PostgreSQL's
 * backends over the timed window (/proc): the cost of a record, which the machine's load moves far
 * less than records/s. BENCH_STATEMENT_TIMINGS=1: each worker prints its time per statement;
 * BENCH_WORKER_NODE_ARGS: node options for the workers (a CPU profile: `--cpu-prof --cpu-prof-dir=…`).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createKnex, migrateLatest } from '../src/db/knex';
import type { RoundReport } from '../src/domain/refresh/round';
import { AS_OF, benchDatabaseUrl, cloneDatabase, cpuMicros, ensureLake, intArg, median, SEED, startSimulatorProcess, stringArg } from './lib';

interface WorkerProcess {
  pid: number;
  ready: Promise<void>;
  stop(): Promise<RoundReport>;
}

function startWorker(env: NodeJS.ProcessEnv, root = path.join(__dirname, '..')): WorkerProcess {
  // BENCH_WORKER_NODE_ARGS: node options for the workers alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`.
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--require', 'tsx/cjs', path.join(root, 'bench', 'servers', 'refreshWorker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  let report: (r: RoundReport) => void;
  const done = new Promise<RoundReport>((resolve) => (report = resolve));
  const ready = new Promise<void>((resolve) =>
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { ready?: boolean; report?: RoundReport };
      if (msg.ready) resolve();
      if (msg.report) report(msg.report);
    }),
  );
  return {
    pid: child.pid!,
    ready,
    stop: () => {
      child.kill('SIGTERM');
      return done;
    },
  };
}

async function main() {
  const persons = intArg('persons', 1_000_000);
  const companies = intArg('companies', 100_000);
  const seconds = intArg('seconds', 30);
  const days = intArg('days', 30);
  const counts = (stringArg('workers') ?? '1,2,4').split(',').map(Number);
  const rounds = intArg('rounds', 3);
  const baseline = stringArg('baseline');
  const baselineDatabase = stringArg('baseline-database');

  const db = await benchDatabaseUrl();
  const setup = createKnex(db.url);
  try {
    await migrateLatest(setup);
    await ensureLake(setup, persons, companies);
  } finally {
    // The lake is copied below, and a database with an open session cannot be a template.
    await setup.destroy();
  }
  const copyName = `${new URL(db.url).pathname.slice(1)}_refresh`;
  const lakeOf = (variant: string) => {
    if (variant !== 'baseline' || !baselineDatabase) return db.url;
    const url = new URL(db.url);
    url.pathname = `/${baselineDatabase}`;
    return url.toString();
  };
  const startAt = new Date(AS_OF.getTime() + days * 86_400_000).toISOString();
  const sim = await startSimulatorProcess(persons, companies, ['--start-at', startAt]);
  interface Run {
    perSecond: number;
    refreshed: number;
    changed: number;
    entries: number;
    passes: number;
    /** CPU time per 1,000 records refreshed, in ms, during the timed window: all workers, the simulator, PostgreSQL's backends of the copy. */
    cpu: { worker: number; source: number; database: number };
    /** Row versions written (inserted, updated, deleted) in the copy's tables per record refreshed, and of them in the refresh queues. */
    rows: { all: number; queue: number };
  }
  const variants: { name: string; root?: string }[] = baseline ? [{ name: 'baseline', root: path.resolve(baseline) }, { name: 'this' }] : [{ name: 'this' }];
  const runs = new Map<string, Run[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const count of counts) {
        for (const variant of variants) {
          // Every run on a fresh copy of the built lake, which no run writes: the same records due in
          // the same order, the same source answers, so 1, 2 and 4 workers (and the next invocation)
          // measure the same path, not what the previous run left behind.
          const copy = await cloneDatabase(lakeOf(variant.name), copyName);
          const knex = createKnex(copy.url);
          try {
            const before = Number((await knex('change_log').max<{ max: number }[]>({ max: 'id' }))[0]!.max ?? 0);
            const workers = Array.from({ length: count }, () => startWorker({ DATABASE_URL: copy.url, LIVE_SOURCE_URL: sim.protocolUrl }, variant.root));
            await Promise.all(workers.map((w) => w.ready));
            // CPU time of every process of the run over the timed window (Linux /proc): it grows far
            // less with the machine's load than wall time, so it says what a record costs on a busy machine.
            const cpuOf = (pids: number[]) => new Map(pids.map((pid) => [pid, safeCpu(pid)]));
            const backends = async () =>
              (await knex.raw<{ rows: { pid: number }[] }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r) => r.pid);
            const workerPids = workers.map((w) => w.pid);
            const startCpu = cpuOf([...workerPids, sim.child.pid!, ...(await backends())]);
            const started = Date.now();
            await new Promise((r) => setTimeout(r, seconds * 1000));
            const endCpu = cpuOf([...workerPids, sim.child.pid!, ...(await backends())]);
            // A process gone by the end (a backend whose connection closed) counts nothing.
            const used = (pid: number) => Math.max(0, (endCpu.get(pid) ?? 0) - (startCpu.get(pid) ?? 0));
            const cpuMs = {
              worker: workerPids.reduce((s, pid) => s + used(pid), 0) / 1000,
              source: used(sim.child.pid!) / 1000,
              database: [...endCpu.keys()].filter((pid) => !workerPids.includes(pid) && pid !== sim.child.pid).reduce((s, pid) => s + used(pid), 0) / 1000,
            };
            const reports = await Promise.all(workers.map((w) => w.stop()));
            const elapsed = (Date.now() - started) / 1000;
            const refreshed = reports.reduce((s, r) => s + r.changed + r.unchanged, 0);
            const changed = reports.reduce((s, r) => s + r.changed, 0);
            const entries = Number(
              (await knex('change_log').where('id', '>', before).count<{ count: number }[]>({ count: '*' }))[0]!.count,
            );
            // Every record is due at once (no minimum age), so a run that gets through the whole lake
            // starts over on records it has just refreshed: those are unchanged, another path; say so.
            // The database's own count of the row versions the run wrote (this copy's tables only, all
            // of them the workers' after its creation): work per record that the machine's load does not move.
            // Backends report their counts when their transactions end; the workers have closed theirs.
            await new Promise((r) => setTimeout(r, 1500));
            const { rows: written } = await knex.raw<{ rows: { all: string; queue: string }[] }>(
              `select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) as all,
                      coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del) filter (where relname in ('person_refresh', 'company_refresh')), 0) as queue
               from pg_stat_user_tables`,
            );
            const per1000 = (ms: number) => (refreshed ? (ms * 1000) / refreshed : NaN);
            const run = {
              perSecond: refreshed / elapsed,
              refreshed,
              changed,
              entries,
              passes: refreshed / (persons + companies),
              cpu: { worker: per1000(cpuMs.worker), source: per1000(cpuMs.source), database: per1000(cpuMs.database) },
              rows: { all: Number(written[0]!.all) / refreshed, queue: Number(written[0]!.queue) / refreshed },
            };
            const key = `${variant.name}:${count}`;
            runs.set(key, [...(runs.get(key) ?? []), run]);
            process.stderr.write(
              `round ${round + 1}/${rounds} ${variant.name.padEnd(8)} ${count} worker(s): ${Math.round(run.perSecond)} records/s (${Math.round(run.perSecond / count)} per worker); CPU ms per 1,000 records: workers ${run.cpu.worker.toFixed(0)}, source ${run.cpu.source.toFixed(0)}, PostgreSQL ${run.cpu.database.toFixed(0)}; row versions per record ${run.rows.all.toFixed(2)} (queue ${run.rows.queue.toFixed(2)}); load ${os.loadavg()[0]!.toFixed(1)}; copy ${(copy.ms / 1000).toFixed(1)} s\n`,
            );
          } finally {
            await knex.destroy();
            await copy.drop();
          }
        }
      }
    }
  } finally {
    await sim.stop();
    await db.stop();
  }
  const lines: string[] = [];
  for (const count of counts) {
    const base = runs.get(`baseline:${count}`);
    for (const variant of variants) {
      const r = runs.get(`${variant.name}:${count}`)!;
      const perSecond = median(r.map((x) => x.perSecond));
      const refreshed = median(r.map((x) => x.refreshed));
      const changed = median(r.map((x) => x.changed));
      const passes = Math.max(...r.map((x) => x.passes));
      const ratio = base && variant.name !== 'baseline' ? `; ${(perSecond / median(base.map((x) => x.perSecond))).toFixed(2)}x the baseline` : '';
      const cpu = (k: keyof Run['cpu']) => median(r.map((x) => x.cpu[k]));
      const baseCpu = (k: keyof Run['cpu']) => (base ? median(base.map((x) => x.cpu[k])) : NaN);
      const total = cpu('worker') + cpu('source') + cpu('database');
      const cpuRatio = base && variant.name !== 'baseline' ? ` (${(total / (baseCpu('worker') + baseCpu('source') + baseCpu('database'))).toFixed(2)}x the baseline)` : '';
      lines.push(
        `${baseline ? `${variant.name.padEnd(8)} ` : ''}${String(count).padStart(2)} worker(s): ${Math.round(perSecond)} records/s (${Math.round(perSecond / count)} per worker)${ratio}; CPU ms per 1,000 records ${total.toFixed(0)}${cpuRatio}: workers ${cpu('worker').toFixed(0)}, source ${cpu('source').toFixed(0)}, PostgreSQL ${cpu('database').toFixed(0)}; row versions written per record ${median(r.map((x) => x.rows.all)).toFixed(2)} (refresh queue ${median(r.map((x) => x.rows.queue)).toFixed(2)}); per run ${Math.round(refreshed)} records, ${Math.round(changed)} rewritten, ${Math.round(refreshed - changed)} only re-verified, ${Math.round(median(r.map((x) => x.entries)))} change-log entries; runs: ${r.map((x) => Math.round(x.perSecond)).join(', ')}` +
          (passes > 1 ? `; !!! ${passes.toFixed(1)} passes over the lake: not only the first pass (use a larger lake or fewer --seconds)` : ''),
      );
    }
  }
  process.stdout.write(
    [
      `bench:refresh  ${persons} persons / ${companies} companies, the source ${days} simulated days ahead, ${seconds} s per run, medians of ${rounds} rounds`,
      `Path measured, the same on every run: a fresh copy of the built lake (seed ${SEED}, as of ${AS_OF.toISOString().slice(0, 10)}; every record due),`,
      `  the first pass over it: records claimed oldest checked first, asked of the source in batches of 100,`,
      `  changed ones rewritten with their changes logged, the rest only re-verified (new fetched_at).`,
      ...(baseline
        ? [
            `Baseline: the worker of ${path.resolve(baseline)}, alternating with this checkout's, ${baselineDatabase ? `on copies of the lake it built (database ${baselineDatabase})` : 'on the same copies'}.`,
          ]
        : []),
      `Load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}`,
      ...lines,
      '',
    ].join('\n'),
  );
}

/** cpuMicros, or 0 for a process gone meanwhile (a backend whose connection closed). */
function safeCpu(pid: number): number {
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
