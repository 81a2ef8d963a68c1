/**
 * npm run bench:match:profile — where one person match's time goes (issue 33's latency aims), on the
 * lake bench:match builds (`enrich_bench_match_<persons>`; run bench:match once first to build it).
 *
 * The engine runs in this process (no HTTP), one query at a time, with the queries bench:match makes
 * (same world, seed and mix options). Per match: wall time, this process's CPU time (normalising,
 * the driver's parsing, comparing and scoring), the statements sent and the round trips (statements
 * in flight together count once). Then every statement of the first `--explain` matches is run
 * again under EXPLAIN (ANALYZE, BUFFERS), grouped by arm (the blocking key it serves): the server's
 * execution time and buffers per arm. Wall times move with the machine's load; the CPU and execution
 * times much less. The load average is printed beside them.
 *
 * Options: --persons=100000 (--1m) --seed=11 --count=300 --explain=100 --mix=<class=weight,...>
 *   --answers=<file>: every query's answer (best id and likelihood, or the error code), one line each,
 *   to compare two engines on the same lake and queries (`diff` of the two files).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { captureStatements, type Statement } from './readMix';
import { createKnex } from '../src/db/knex';
import { AppError } from '../src/domain/errors';
import { matchPerson } from '../src/domain/match/person';
import { createWorld } from '../src/world';
import { PERSON_NOISE, generateMatchQueries, parseMix } from '../src/world/matchQueries';
import { benchDatabaseUrl, lakeNameKeys, AS_OF, cpuMicros, flagArg, intArg, percentile, stringArg, SEED } from './lib';

/** The arm a statement serves, by what it reads (the candidate SQL of db/repositories/matchCandidates.ts). */
const ARMS: readonly (readonly [string, RegExp])[] = [
  ['persons by trigram', /lake_trgm_name\(full_name\) %/],
  ['persons and employers, one statement', /by_name as|by_domain as/],
  ['persons by name key', /lake_name_key\(full_name\)/],
  ['companies by former name', /change_log/],
  ['companies by host', /lake_web_host/],
  ['companies by similar name', /lake_company_key\(name\) %/],
  ['companies by name key', /lake_company_key\(name\) =/],
  ['companies by id', /from companies where id = any/],
];
const armOf = (sql: string) => ARMS.find(([, re]) => re.test(sql))?.[0] ?? `other: ${sql.slice(0, 60)}`;

interface Timed {
  wall: number;
  cpu: number;
  statements: Statement[];
  /** Statements that waited on another one's answer (a new wave after a previous one finished). */
  roundTrips: number;
}

async function main(): Promise<void> {
  const big = flagArg('1m');
  const persons = intArg('persons', big ? 1_000_000 : 100_000);
  const companies = intArg('companies', big ? 100_000 : Math.max(1, Math.floor(persons / 10)));
  const seed = intArg('seed', 11);
  const count = intArg('count', 300);
  const explainCount = intArg('explain', 100);
  const mixText = stringArg('mix');
  const answersFile = stringArg('answers');
  const answers: string[] = [];
  const world = createWorld({ persons, companies, seed: SEED, asOf: AS_OF });
  const loaded = persons - Math.floor(persons / 50);
  const db = await benchDatabaseUrl(process.env.BENCH_MATCH_DATABASE || `enrich_bench_match_${persons}`);
  const names = await lakeNameKeys(db.url);
  const queries = generateMatchQueries(world, {
    seed, count, loadedPersons: loaded, isTakenName: (n) => names.has(n), mix: mixText ? parseMix(mixText, Object.keys(PERSON_NOISE)) : undefined,
  });
  // One connection: its backend's CPU time (Linux /proc; the server is on this machine) is the
  // database's share of every match. Arms sent together then wait for each other (CPU is unchanged).
  const knex = createKnex(db.url, 1);
  const explainer = new pg.Client({ connectionString: db.url, application_name: 'match-profile', statement_timeout: 60_000 });
  explainer.on('error', () => undefined);
  try {
    const built = await knex.raw(`select to_regclass('bench_match_lake') is not null as ok`);
    if (!built.rows[0].ok) throw new Error(`no match lake in ${new URL(db.url).pathname.slice(1)}: run npm run bench:match${big ? ' -- --1m' : ''} first`);
    await explainer.connect();
    const loadBefore = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    for (const q of queries.slice(0, 30)) await matchPerson(knex, q.query).catch(() => undefined); // warm
    const backendPid = async () => ((await knex.raw('select pg_backend_pid() as pid')).rows[0] as { pid: number }).pid;
    const pid = await backendPid();
    const pgCpu0 = cpuMicros(pid);
    const timed: (Timed & { noise: string })[] = [];
    for (const q of queries) {
      let wall = 0;
      let cpu = 0;
      let inFlight = 0;
      let roundTrips = 0;
      // A round trip starts when a statement goes out while none is in flight.
      const onQuery = () => (inFlight++ === 0 ? roundTrips++ : undefined);
      const onDone = () => void inFlight--;
      knex.on('query', onQuery).on('query-response', onDone).on('query-error', onDone);
      const statements = await captureStatements(knex, async () => {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        try {
          await matchPerson(knex, q.query);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
        }
        wall = performance.now() - t0;
        const c = process.cpuUsage(c0);
        cpu = (c.user + c.system) / 1000;
      });
      knex.off('query', onQuery).off('query-response', onDone).off('query-error', onDone);
      timed.push({ wall, cpu, statements, roundTrips, noise: q.noise });
    }
    // Untimed: every query's ranked candidates down to likelihood 0 (the answer and the ones behind it).
    if (answersFile) {
      for (const [i, q] of queries.entries()) {
        try {
          const out = await matchPerson(knex, { ...q.query, candidates: 10, min_likelihood: 0 });
          answers.push(`${i}\t${q.noise}\t${(out.candidates ?? []).map((c) => `${c.data.id}:${c.match.likelihood}`).join(' ')}`);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          answers.push(`${i}\t${q.noise}\t${e.code}`);
        }
      }
      writeFileSync(answersFile, `${answers.join('\n')}\n`);
    }
    const pgCpuPerMatch = (cpuMicros(pid) - pgCpu0) / 1000 / timed.length;
    const samePid = (await backendPid()) === pid;
    const loadAfter = os.loadavg().map((l) => l.toFixed(2)).join(' ');

    // The server's side: every statement of the first matches, explained with its own bindings.
    const arms = new Map<string, { ms: number[]; hit: number; read: number; rows: number }>();
    const perMatchServer: number[] = [];
    for (const t of timed.slice(0, explainCount)) {
      let sum = 0;
      for (const s of t.statements) {
        // Several statements as one simple query (the trigram arm: a setting for its transaction,
        // then the read): each read is explained in a transaction under the settings before it.
        const parts = s.sql.split(/;\n/);
        const isSetting = (p: string) => /^\s*select set_config\(/i.test(p);
        for (const [k, sql] of parts.entries()) {
          if (isSetting(sql)) continue;
          const before = parts.slice(0, k).filter(isSetting);
          if (before.length) await explainer.query(`begin; ${before.join(';\n')}`);
          const { rows } = await explainer
            .query(`explain (analyze, buffers, format json) ${sql}`, s.bindings as unknown[])
            .finally(() => (before.length ? explainer.query('rollback') : undefined));
          const plan = (rows[0]['QUERY PLAN'] as { Plan: Record<string, number>; 'Execution Time': number; 'Planning Time': number }[])[0]!;
          const arm = armOf(sql) + (/current_company_id = any\(array\[/.test(sql) ? ' (at employers)' : '');
          const a = arms.get(arm) ?? { ms: [], hit: 0, read: 0, rows: 0 };
          const ms = plan['Execution Time'] + plan['Planning Time'];
          a.ms.push(ms);
          a.hit += plan.Plan['Shared Hit Blocks'] ?? 0;
          a.read += plan.Plan['Shared Read Blocks'] ?? 0;
          a.rows += plan.Plan['Actual Rows'] ?? 0;
          arms.set(arm, a);
          sum += ms;
        }
      }
      perMatchServer.push(sum);
    }

    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const f = (xs: number[], p: number) => percentile(sorted(xs), p).toFixed(1);
    const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length));
    const lines = [
      `bench:match:profile — lake ${new URL(db.url).pathname.slice(1)} (${loaded.toLocaleString('en')} persons), ${queries.length} person queries (seed ${seed}, mix ${mixText ?? 'default'}), in process`,
      `Load average before / after: ${loadBefore} / ${loadAfter} (${os.cpus().length} cores); ${new Date().toISOString()}`,
      `Per match: wall p50 ${f(timed.map((t) => t.wall), 50)} ms, p95 ${f(timed.map((t) => t.wall), 95)} ms; node CPU p50 ${f(timed.map((t) => t.cpu), 50)} ms, mean ${mean(timed.map((t) => t.cpu)).toFixed(2)} ms;` +
        ` statements mean ${mean(timed.map((t) => t.statements.length)).toFixed(2)} (max ${Math.max(...timed.map((t) => t.statements.length))}); round trips mean ${mean(timed.map((t) => t.roundTrips)).toFixed(2)} (max ${Math.max(...timed.map((t) => t.roundTrips))})`,
      `PostgreSQL CPU per match (its backend, /proc): mean ${pgCpuPerMatch.toFixed(2)} ms${samePid ? '' : ' (the connection was replaced during the run: an undercount)'}`,
      `Server time per match (EXPLAIN ANALYZE, planning + execution, sum of its statements; first ${perMatchServer.length}): p50 ${f(perMatchServer, 50)} ms, p95 ${f(perMatchServer, 95)} ms, mean ${mean(perMatchServer).toFixed(2)} ms`,
      '',
      'arm                               n   p50 ms  p95 ms  max ms  mean rows  buffers hit/read per statement',
    ];
    for (const [arm, a] of [...arms].sort((x, y) => mean(y[1].ms) * y[1].ms.length - mean(x[1].ms) * x[1].ms.length)) {
      lines.push(`${arm.padEnd(32)} ${String(a.ms.length).padStart(3)} ${f(a.ms, 50).padStart(8)} ${f(a.ms, 95).padStart(7)} ${Math.max(...a.ms).toFixed(1).padStart(7)} ${(a.rows / a.ms.length).toFixed(1).padStart(10)}  ${(a.hit / a.ms.length).toFixed(0)}/${(a.read / a.ms.length).toFixed(0)}`);
    }
    lines.push('', 'Slowest classes (wall p95 by noise class):');
    const byNoise = new Map<string, number[]>();
    for (const t of timed) byNoise.set(t.noise, [...(byNoise.get(t.noise) ?? []), t.wall]);
    for (const [noise, ws] of [...byNoise].sort((a, b) => percentile(sorted(b[1]), 95) - percentile(sorted(a[1]), 95)).slice(0, 8)) {
      lines.push(`  ${noise.padEnd(22)} n ${String(ws.length).padStart(3)}  p50 ${f(ws, 50).padStart(6)}  p95 ${f(ws, 95).padStart(6)} ms`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await explainer.end().catch(() => undefined);
    await knex.destroy();
    await db.stop();
  }
}
main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
