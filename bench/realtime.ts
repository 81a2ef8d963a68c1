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
 * rounds; "added" is the difference of p50s to the cached lookup, "ratio" their quotient, both from
 * the same rounds. `--baseline=<checkout>` also runs the server of another checkout of this
 * repository (same database, same simulator), its rounds alternating with this one's.
 * The lake (20,000 persons, 1,000 companies) lives in the database `enrich_bench_realtime`, built
 * once. Options: --persons=20000 --companies=1000 --rounds=5 --seconds=10 --connections=1 --baseline=<dir>
 */
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { benchDatabaseUrl, prepareLookupLake, intArg, measure, median, startServerProcess, startSimulatorProcess, stringArg, type Round, type Server } from './lib';

async function main() {
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', 1_000);
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 10);
  const connections = intArg('connections', 1);
  const baseline = stringArg('baseline');

  const db = await benchDatabaseUrl('enrich_bench_realtime');
  const { key, usernames } = await prepareLookupLake(db.url, persons, companies, 'select username from persons order by md5(username) limit 20000');

  const sim = await startSimulatorProcess(persons, companies);
  const env = { DATABASE_URL: db.url, LIVE_SOURCE_URL: sim.protocolUrl, REFRESH_IN_PROCESS: '0' };
  const servers: { name: string; server: Server }[] = [];
  try {
    servers.push({ name: 'this', server: await startServerProcess('fullStack.ts', env) });
    // A baseline whose migrations are older than this lake's refuses to start (the schema is newer).
    if (baseline) servers.unshift({ name: 'baseline', server: await startServerProcess('fullStack.ts', env, path.resolve(baseline)) });
  } catch (err) {
    for (const { server } of servers) await server.stop();
    await sim.stop();
    throw err;
  }
  let next = 0;
  const requests = (query: string): autocannon.Request[] => [
    { setupRequest: (req) => ({ ...req, path: `${query}${encodeURIComponent(usernames[next++ % usernames.length]!)}` }) },
  ];
  const variants = {
    lookup: requests('/api/v1/person?username='),
    live: requests('/api/v1/person/realtime?max_age=0&username='),
    cache: requests('/api/v1/person/realtime?max_age=31536000&username='),
  };
  type Name = keyof typeof variants;
  const headers = { authorization: `Bearer ${key}` };
  const results = new Map<string, Record<Name, Round[]>>(servers.map((s) => [s.name, { lookup: [], live: [], cache: [] }]));
  try {
    for (const { server } of servers) for (const r of Object.values(variants)) await measure(server.url, { seconds: 2, connections, headers, requests: r });
    for (let i = 0; i < rounds; i++) {
      for (const { name: serverName, server } of i % 2 ? [...servers].reverse() : servers) {
        for (const [name, r] of Object.entries(variants)) {
          results.get(serverName)![name as Name].push(await measure(server.url, { seconds, connections, headers, requests: r }));
        }
      }
      process.stderr.write(`round ${i + 1}/${rounds} done (load ${os.loadavg()[0]!.toFixed(1)})\n`);
    }
  } finally {
    for (const { server } of servers) await server.stop();
    await sim.stop();
    await db.stop();
  }
  const med = (r: Round[], f: (x: Round) => number) => median(r.map(f));
  const lines: string[] = [];
  for (const { name: serverName } of servers) {
    const res = results.get(serverName)!;
    const base = med(res.lookup, (x) => x.p50);
    // Per round: this variant's p50 over the cached lookup's p50 of the same round; the median of those.
    const ratio = (r: Round[]) => median(r.map((x, i) => x.p50 / res.lookup[i]!.p50));
    const row = (name: string, r: Round[]) =>
      `${baseline ? `${serverName.padEnd(9)}` : ''}${name.padEnd(44)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(6)} req/s   p50 ${med(r, (x) => x.p50).toFixed(2).padStart(6)} ms   p99 ${med(r, (x) => x.p99).toFixed(2).padStart(6)} ms   added p50 ${(med(r, (x) => x.p50) - base).toFixed(2).padStart(6)} ms   ratio ${ratio(r).toFixed(2).padStart(5)}x   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}`;
    lines.push(
      row('GET /person (cached lookup)', res.lookup),
      row('GET /person/realtime max_age=0 (live + write)', res.live),
      row('GET /person/realtime (cache hit, metered)', res.cache),
    );
  }
  process.stdout.write(
    [
      `bench:realtime  ${persons} persons / ${companies} companies, ${connections} connection(s), ${rounds} rounds of ${seconds} s (medians)`,
      ...(baseline ? [`baseline: the server of ${path.resolve(baseline)}, rounds alternating with this checkout's`] : []),
      `Load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}`,
      ...lines,
      '',
    ].join('\n'),
  );
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
