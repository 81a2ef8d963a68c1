/**
 * npm run bench:realtime — what a live fetch adds. In one run, alternating rounds, through the
 * full stack of one server whose live source is `enrich live-sim` (a separate process, no added
 * latency) holding the same world as the lake:
 *
 *   GET /person?username=                      the cached lookup (the baseline)
 *   GET /person/realtime?username=&max_age=0   a live fetch from the simulator, written back through
 *                                              the lake writer and metered, in one transaction
 *   GET /person/realtime?username=             a cache hit (metered: one usage row)
 *
 * Every request names another profile (no coalescing, no lock waits). Figures are medians of the
 * rounds; "added" is the difference of p50s to the cached lookup.
 * The lake (20,000 persons, 1,000 companies) lives in the database `enrich_bench_realtime`, built
 * once. Options: --persons=20000 --companies=1000 --rounds=5 --seconds=10 --connections=1
 */
import type autocannon from 'autocannon';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, measure, median, startServerProcess, startSimulatorProcess, type Round } from './lib';

async function main() {
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', 1_000);
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 10);
  const connections = intArg('connections', 1);

  const db = await benchDatabaseUrl('enrich_bench_realtime');
  const knex = createKnex(db.url);
  let usernames: string[];
  let key: string;
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, companies);
    key = (await createWorkspace(knex, { name: `bench-${Date.now()}`, rateLimit: 1_000_000_000, active: true })).api_key;
    usernames = (await knex('persons').select('username').orderByRaw('md5(username)').limit(20_000)).map((r) => r.username);
  } finally {
    await knex.destroy();
  }

  const sim = await startSimulatorProcess(persons, companies);
  const server = await startServerProcess('fullStack.ts', {
    DATABASE_URL: db.url,
    LIVE_SOURCE_URL: sim.protocolUrl,
    REFRESH_IN_PROCESS: '0',
  });
  let next = 0;
  const requests = (query: string): autocannon.Request[] => [
    { setupRequest: (req) => ({ ...req, path: `${query}${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  const variants = {
    lookup: requests('/api/v1/person?username='),
    live: requests('/api/v1/person/realtime?max_age=0&username='),
    cache: requests('/api/v1/person/realtime?max_age=31536000&username='),
  };
  const headers = { authorization: `Bearer ${key}` };
  const results: Record<keyof typeof variants, Round[]> = { lookup: [], live: [], cache: [] };
  try {
    for (const r of Object.values(variants)) await measure(server.url, { seconds: 2, connections, headers, requests: r });
    for (let i = 0; i < rounds; i++) {
      for (const [name, r] of Object.entries(variants)) {
        results[name as keyof typeof variants].push(await measure(server.url, { seconds, connections, headers, requests: r }));
      }
      process.stderr.write(`round ${i + 1}/${rounds} done\n`);
    }
  } finally {
    await server.stop();
    await sim.stop();
    await db.stop();
  }
  const med = (r: Round[], f: (x: Round) => number) => median(r.map(f));
  const base = med(results.lookup, (x) => x.p50);
  const row = (name: string, r: Round[]) =>
    `${name.padEnd(44)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(6)} req/s   p50 ${med(r, (x) => x.p50).toFixed(2).padStart(6)} ms   p99 ${med(r, (x) => x.p99).toFixed(2).padStart(6)} ms   added p50 ${(med(r, (x) => x.p50) - base).toFixed(2).padStart(6)} ms   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
  process.stdout.write(
    [
      `bench:realtime  ${persons} persons / ${companies} companies, ${connections} connection(s), ${rounds} rounds of ${seconds} s (medians)`,
      row('GET /person (cached lookup)', results.lookup),
      row('GET /person/realtime max_age=0 (live + write)', results.live),
      row('GET /person/realtime (cache hit, metered)', results.cache),
      '',
    ].join('\n'),
  );
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
