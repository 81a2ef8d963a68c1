/**
 * npm run bench:idle — what an idle `enrich serve` costs: the CPU time (user + system, /proc) of the
 * full stack's process per second while it answers nothing (its background loops: the event feed's
 * sequencer, the refresh, delivery and list job workers, pools, metrics), over `--spells` spells of
 * `--seconds` after it starts listening. With --base=<another checkout> that checkout's full stack
 * runs at the same time (same minutes, same load), so before/after is one run. --no-workers: with
 * REFRESH_IN_PROCESS, WEBHOOK_DELIVERY_IN_PROCESS and JOB_WORKER_IN_PROCESS off.
 * Uses the bench database (BENCH_DATABASE), migrated; no lake needed.
 */
import { createKnex, migrateLatest } from '../src/db/knex';
import { benchDatabaseUrl, cpuMicros, flagArg, intArg, median, startServerProcess, stringArg, type Server, loadAverageLine, loadAverages } from './lib';

async function spells(server: Server, count: number, seconds: number): Promise<number[]> {
  const rates: number[] = [];
  for (let i = 0; i < count; i++) {
    const before = cpuMicros(server.child.pid!);
    const started = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    rates.push((cpuMicros(server.child.pid!) - before) / (performance.now() - started));
  }
  return rates;
}

async function main() {
  const count = intArg('spells', 6);
  const seconds = intArg('seconds', 10);
  const base = stringArg('base');
  const loadAtStart = loadAverages();
  const db = await benchDatabaseUrl();
  const knex = createKnex(db.url);
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
  const env: NodeJS.ProcessEnv = { DATABASE_URL: db.url };
  if (flagArg('no-workers')) Object.assign(env, { REFRESH_IN_PROCESS: '0', WEBHOOK_DELIVERY_IN_PROCESS: '0', JOB_WORKER_IN_PROCESS: '0' });
  const servers: Record<string, Server> = {
    full: await startServerProcess('fullStack.ts', env),
    ...(base ? { before: await startServerProcess('fullStack.ts', env, base) } : {}),
  };
  let results: Record<string, number[]> = {};
  try {
    const names = Object.keys(servers);
    const measured = await Promise.all(names.map((n) => spells(servers[n]!, count, seconds)));
    results = Object.fromEntries(names.map((n, i) => [n, measured[i]!]));
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    await db.stop();
  }
  const row = (name: string, label: string) =>
    results[name] ? `${label.padEnd(28)} median ${median(results[name]!).toFixed(1)} ms CPU/s   spells ${results[name]!.map((r) => r.toFixed(1)).join(' ')}` : '';
  process.stdout.write(
    [
      `Idle enrich serve${flagArg('no-workers') ? ' (workers off)' : ''}: CPU per second over ${count} spells of ${seconds} s after listening`,
      row('full', 'full stack'),
      ...(base ? [row('before', `before (${base})`), `after/before ${(median(results.full!) / median(results.before!)).toFixed(2)}`] : []),
      loadAverageLine(loadAtStart),
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
