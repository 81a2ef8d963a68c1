/**
 * `npm run bench:startup`: wall time of `enrich` commands as a user runs them (a new node process
 * each), next to a bare `node -e 0`, in interleaved rounds so a busy machine slows all of them alike;
 * medians. `enrich key list` runs against a database of its own (DATABASE_URL's server, or an
 * embedded PostgreSQL in a temporary directory), so its time includes connecting, the migration
 * check and the query. The last row runs the TypeScript sources through tsx, as bin/enrich.js did
 * before dist/ existed (and still does when dist/ is missing or stale).
 *
 * Beside the wall time, each command's CPU time (user + system, from a preloaded hook,
 * bench/servers/cpuAtExit.js, in every command alike): it does not grow with the machine's load the
 * way wall time does, so it is the honest estimate of a quiet machine's figure on a busy one.
 * `--baseline=<checkout>` (a built checkout of another commit, e.g. `git worktree add /tmp/base main
 * && (cd /tmp/base && npm run build)`) adds its `enrich key list` to the same interleaved rounds.
 *
 *   npm run bench:startup [-- --rounds=15 --baseline=<dir>]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { databaseUrl, freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded';
import { dropDatabase, ensureDatabase } from '../src/db/knex';
import { intArg, median, percentile, stringArg } from './lib';

const root = path.resolve(__dirname, '..');
const bin = path.join(root, 'bin', 'enrich.js');

async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  const name = `enrich_startup_${process.pid}`;
  let embedded: EmbeddedDatabase | undefined;
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    embedded = await startEmbeddedPostgres({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'enrich-startup-')), port: await freePort() });
    admin = embedded.adminUrl;
  }
  await ensureDatabase(admin, name);
  return {
    url: databaseUrl(admin, name),
    stop: async () => {
      await dropDatabase(admin!, name);
      if (embedded) {
        await embedded.stop();
        fs.rmSync(embedded.dir, { recursive: true, force: true });
      }
    },
  };
}

const cpuHook = path.join(root, 'bench', 'servers', 'cpuAtExit.js');

/** Wall and CPU milliseconds of one run of `node args`. */
function timed(args: string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number } {
  const cpuFile = path.join(os.tmpdir(), `enrich-startup-cpu-${process.pid}`);
  fs.rmSync(cpuFile, { force: true });
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', cpuHook, ...args], { env: { ...env, BENCH_CPU_FILE: cpuFile }, stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited with ${run.status}: ${run.stderr}`);
  const cpu = Number(fs.readFileSync(cpuFile, 'utf8').trim().split('\n').pop()) / 1000;
  fs.rmSync(cpuFile, { force: true });
  return { wall, cpu };
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'dist', '.built'))) throw new Error('dist/ is not built: run `npm run build` first');
  const rounds = intArg('rounds', 15);
  const baseline = stringArg('baseline');
  const baselineBin = baseline && path.join(path.resolve(baseline), 'bin', 'enrich.js');
  if (baseline && !fs.existsSync(path.join(path.resolve(baseline), 'dist', '.built'))) throw new Error(`${baseline}: dist/ is not built`);
  const db = await database();
  try {
    const env = { ...process.env, DATABASE_URL: db.url };
    const created = JSON.parse(execFileSync(process.execPath, [bin, 'workspace', 'create', '--name', 'startup', '--json'], { env }).toString()) as {
      workspace_id: string;
    };
    const cases: [string, string[]][] = [
      ['node -e 0 (bare node)', ['-e', '0']],
      ['enrich --help', [bin, '--help']],
      ['enrich key list --json (with the database round trips)', [bin, 'key', 'list', '--workspace', created.workspace_id, '--json']],
      ['enrich --help from the sources through tsx', ['--require', 'tsx/cjs', path.join(root, 'src', 'cli', 'main.ts'), '--help']],
      ...(baselineBin ? [['baseline: enrich key list --json', [baselineBin, 'key', 'list', '--workspace', created.workspace_id, '--json']] as [string, string[]]] : []),
    ];
    const times = cases.map(() => [] as { wall: number; cpu: number }[]);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      cases.forEach(([, args], i) => times[i].push(timed(args, env)));
      loads.push(os.loadavg()[0]);
    }
    process.stdout.write(
      `${rounds} interleaved rounds, ${os.cpus().length} cores, load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} during the rounds (median ${median(loads).toFixed(2)})${baseline ? `; baseline ${path.resolve(baseline)}` : ''}\n`,
    );
    process.stdout.write(`${'command'.padEnd(58)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'p90'.padStart(8)} ${'CPU med'.padStart(8)} ${'CPU min'.padStart(8)}\n`);
    const ms = (v: number) => `${v.toFixed(0)} ms`.padStart(8);
    cases.forEach(([label], i) => {
      const wall = times[i].map((t) => t.wall).sort((a, b) => a - b);
      const cpu = times[i].map((t) => t.cpu).sort((a, b) => a - b);
      process.stdout.write(`${label.padEnd(58)} ${ms(median(wall))} ${ms(wall[0])} ${ms(percentile(wall, 90))} ${ms(median(cpu))} ${ms(cpu[0])}\n`);
    });
    if (baselineBin) {
      const keyList = (i: number) => median(times[i].map((t) => t.wall));
      const keyCpu = (i: number) => median(times[i].map((t) => t.cpu));
      const at = cases.length - 1;
      process.stdout.write(
        `enrich key list, this / baseline: wall ${(keyList(2) / keyList(at)).toFixed(2)}x, CPU ${(keyCpu(2) / keyCpu(at)).toFixed(2)}x\n`,
      );
    }
  } finally {
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
