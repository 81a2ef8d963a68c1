/**
 * npx tsx bench/fullTextCount.ts --word=business [--executions=20 --rounds=5] — the bounded count of
 * a full-text first page (`select count(*) from (select 1 ... limit 1001)`, searchPeople) on
 * BENCH_DATABASE's lake, as the planner chooses it and with the other plans forced, each on its own
 * connection, alternating: the plan and its buffers (EXPLAIN ANALYZE, BUFFERS), then per execution
 * the backend's CPU time (/proc, which the machine's load moves less than the wall time) and the
 * wall time, medians over the rounds, and each against the planner's choice.
 */
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { benchDatabaseUrl, intArg, median, stringArg } from './lib';

const SQL = `select count(*)::int as count from (select 1 from persons p where p.search_words @@ websearch_to_tsquery('simple', $1) limit 1001) m`;

const VARIANTS: Record<string, string[]> = {
  planned: [],
  'bitmap, exact': ['set enable_seqscan = off', 'set enable_indexonlyscan = off', 'set enable_indexscan = off'],
  'seq scan': ['set enable_bitmapscan = off', 'set enable_indexonlyscan = off', 'set enable_indexscan = off'],
  'bitmap, lossy': ["set work_mem = '64kB'", 'set enable_seqscan = off', 'set enable_indexonlyscan = off', 'set enable_indexscan = off'],
};

/** CPU time (user + system) of a local process so far, in ms (/proc, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Plan {
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; Plans: { Plans: { 'Node Type': string; 'Lossy Heap Blocks'?: number }[] }[] };
  'Execution Time': number;
}

async function main() {
  const word = stringArg('word') ?? 'business';
  const executions = intArg('executions', 20);
  const rounds = intArg('rounds', 5);
  const db = await benchDatabaseUrl();
  const sides = [];
  for (const [name, settings] of Object.entries(VARIANTS)) {
    const client = new pg.Client({ connectionString: db.url, statement_timeout: 60_000, connectionTimeoutMillis: 10_000 });
    client.on('error', () => undefined);
    await client.connect();
    for (const s of settings) await client.query(s);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const explained = await client.query(`explain (analyze, buffers, format json) ${SQL}`, [word]);
    const plan = (explained.rows[0] as Record<string, Plan[]>)['QUERY PLAN']![0]!;
    const scan = plan.Plan.Plans[0]!.Plans[0]!;
    const described = `${scan['Node Type']}${scan['Lossy Heap Blocks'] ? `, ${scan['Lossy Heap Blocks']} lossy pages` : ''}, ${plan.Plan['Shared Hit Blocks'] + plan.Plan['Shared Read Blocks']} buffers`;
    sides.push({ name, client, pid: rows[0]!.pid, described, cpu: [] as number[], wall: [] as number[], count: 0 });
  }
  try {
    for (let round = 0; round < rounds; round++) {
      for (const side of sides) {
        const cpu = cpuMs(side.pid);
        const started = process.hrtime.bigint();
        for (let i = 0; i < executions; i++) side.count = (await side.client.query<{ count: number }>(SQL, [word])).rows[0]!.count;
        side.wall.push(Number(process.hrtime.bigint() - started) / 1e6 / executions);
        side.cpu.push((cpuMs(side.pid) - cpu) / executions);
      }
    }
  } finally {
    for (const side of sides) await side.client.end();
    await db.stop();
  }
  const base = sides[0]!;
  const lines = [`count of '${word}' (bound 1,001), ${rounds} rounds x ${executions} executions per plan, alternating; medians`];
  for (const s of sides) {
    lines.push(
      `${s.name.padEnd(14)} count ${s.count}  ${s.described.padEnd(40)} backend CPU ${median(s.cpu).toFixed(2)} ms, wall ${median(s.wall).toFixed(2)} ms` +
        `  vs planned: CPU ${(median(s.cpu) / median(base.cpu)).toFixed(2)}, wall ${(median(s.wall) / median(base.wall)).toFixed(2)}`,
    );
  }
  lines.push(`load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores)`, '');
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
