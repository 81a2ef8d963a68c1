/**
 * npm run bench:lookup — GET /api/v1/person?username= on a 1,000,000-person / 100,000-company lake,
 * through the full stack (auth, rate limit lifted for the bench workspace, validation, envelope),
 * next to a bare node:http + pg server running the single query that returns the same record (and
 * a variant of it using a prepared statement, as our lookups do, so the gain of that is visible),
 * and Fastify 5 with a JSON-schema querystring, the same prepared query and the same envelope
 * (bench/servers/fastifyPersonLookup.ts), the permanent mainstream-framework anchor of issue 14.
 * Rounds alternate between the servers, and the order of the servers changes every round (odd
 * rounds run it reversed), so neither a busy spell of the machine nor going first or last always
 * lands on the same server. Figures are medians; the ratios are printed per round (each from the
 * servers' figures in that round) with their median, so a spread between rounds is visible instead
 * of hidden inside a ratio of medians. Each server's CPU time per answered
 * request (user + system, from /proc) is measured over the same rounds. The PostgreSQL version and
 * settings are printed with the figures.
 *
 * The lake lives in its own database `enrich_bench` (on DATABASE_URL's server, or the embedded
 * PostgreSQL under ENRICH_DATA_DIR) and is built once, then reused while its size and seed match.
 * Options: --persons=1000000 --companies=100000 --rounds=5 --seconds=10 --connections=32, and
 * --base=<another checkout's directory> (for example `git archive` of the branch point, with a
 * node_modules link): that checkout's full stack runs in the same alternating rounds as `full
 * before`, so a change is measured before/after in one run, next to the same anchor.
 */
import type autocannon from 'autocannon';
import { benchDatabaseUrl, prepareLookupLake, idleCpuMicrosPerSecond, intArg, measure, measureServer, median, postgresSettingsLine, startServerProcess, stringArg, type Round, type Server, loadAverageLine, loadAverages } from './lib';

async function main() {
  const persons = intArg('persons', 1_000_000);
  const companies = intArg('companies', 100_000);
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 10);
  const connections = intArg('connections', 32);
  const base = stringArg('base');

  const loadAtStart = loadAverages();
  const db = await benchDatabaseUrl();
  const { key, usernames } = await prepareLookupLake(db.url, persons, companies, 'select username from persons tablesample system (2) repeatable (7) limit 20000');

  const env = { DATABASE_URL: db.url };
  const full = await startServerProcess('fullStack.ts', env);
  const bare = await startServerProcess('barePersonLookup.ts', env);
  const barePrepared = await startServerProcess('barePersonLookup.ts', { ...env, BARE_PREPARED: '1' });
  const fastify = await startServerProcess('fastifyPersonLookup.ts', env);
  const before = base ? await startServerProcess('fullStack.ts', env, base) : undefined;
  const settings = await postgresSettingsLine(db.url);
  // Each connection walks the sample from its own offset, so requests spread over the whole lake.
  let next = 0;
  const requests: autocannon.Request[] = [
    {
      setupRequest: (req) => ({
        ...req,
        path: `/api/v1/person?username=${encodeURIComponent(usernames[next++ % usernames.length])}`,
      }),
    },
  ];
  const headers = { authorization: `Bearer ${key}` };
  type Measured = Round & { cpuPerRequestMicros: number; netCpuPerRequestMicros: number };
  const idle: Record<string, number> = {};
  const servers: Record<string, Server> = { full, fastify, bare, barePrepared, ...(before ? { before } : {}) };
  const results: Record<string, Measured[]> = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
  const orders: string[][] = [];
  try {
    for (const server of Object.values(servers)) await measure(server.url, { seconds: 3, connections, headers, requests });
    const names = Object.keys(servers);
    for (const name of names) idle[name] = await idleCpuMicrosPerSecond(servers[name]!);
    for (let i = 0; i < rounds; i++) {
      // Even rounds in the declared order, odd rounds reversed: each server is first as often as last.
      const order = i % 2 ? [...names].reverse() : names;
      orders.push(order);
      for (const name of order) results[name]!.push(await measureServer(servers[name]!, { seconds, connections, headers, requests }, idle[name]));
      process.stderr.write(`round ${i + 1}/${rounds} done (${order.join(', ')})\n`);
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    await db.stop();
  }
  const med = (r: Measured[], f: (x: Measured) => number) => median(r.map(f));
  const row = (name: string, key: string) => {
    const r = results[key]!;
    return `${name.padEnd(30)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(7)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   CPU ${med(r, (x) => x.cpuPerRequestMicros).toFixed(0)} µs/req (idle ${(idle[key]! / 1000).toFixed(1)} ms/s; net of it ${med(r, (x) => x.netCpuPerRequestMicros).toFixed(0)})   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}   errors ${r.reduce((s, x) => s + x.errors, 0)}`;
  };
  // One ratio per round, from the two servers' figures of that round, then the median of those.
  const ratios = (a: Measured[], b: Measured[], f: (x: Measured) => number) => a.map((x, i) => f(x) / Math.max(f(b[i]!), 0.001));
  const ratioLine = (label: string, values: number[], digits: number, aim: string) =>
    `${label.padEnd(40)} median ${median(values).toFixed(digits)}   rounds ${values.map((v) => v.toFixed(digits)).join(' ')}   (${aim})`;
  const rps = (x: Measured) => x.requestsPerSecond;
  process.stdout.write(
    [
      `GET /api/v1/person?username= over ${persons} persons / ${companies} companies, ${usernames.length} distinct usernames,`,
      `${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      settings,
      row('full stack', 'full'),
      ...(before ? [row(`full stack before (${base})`, 'before')] : []),
      row('Fastify 5 (same query, envelope)', 'fastify'),
      row('bare node:http + pg', 'bare'),
      row('bare, prepared statement', 'barePrepared'),
      `Ratios, one per round (round order: ${orders.map((o, i) => `${i + 1}: ${o.join('>')}`).join('; ')}):`,
      ratioLine('full/bare requests/s', ratios(results.full!, results.bare!, rps), 3, 'aim >= 0.75'),
      ratioLine('full/bare p99', ratios(results.full!, results.bare!, (x) => x.p99), 2, 'aim < 2'),
      ratioLine('full/bare-prepared requests/s', ratios(results.full!, results.barePrepared!, rps), 3, 'the same query plan on both sides'),
      ratioLine('full/Fastify requests/s', ratios(results.full!, results.fastify!, rps), 3, 'aim >= 1.0 (issue 35)'),
      ratioLine('full/Fastify CPU per request', ratios(results.full!, results.fastify!, (x) => x.cpuPerRequestMicros), 2, 'aim <= 1.0 (issue 35)'),
      ratioLine('full/Fastify CPU per request, net of idle', ratios(results.full!, results.fastify!, (x) => x.netCpuPerRequestMicros), 2, 'background loops taken out'),
      ratioLine('full/Fastify p99', ratios(results.full!, results.fastify!, (x) => x.p99), 2, 'aim <= 1.0 (issue 35)'),
      ...(before
        ? [
            ratioLine('before/Fastify requests/s', ratios(results.before!, results.fastify!, rps), 3, 'the same, before'),
            ratioLine('before/Fastify CPU per request', ratios(results.before!, results.fastify!, (x) => x.cpuPerRequestMicros), 2, 'the same, before'),
            ratioLine('before/Fastify p99', ratios(results.before!, results.fastify!, (x) => x.p99), 2, 'the same, before'),
            ratioLine('before/Fastify CPU, net of idle', ratios(results.before!, results.fastify!, (x) => x.netCpuPerRequestMicros), 2, 'the same, before'),
            ratioLine('full/before CPU per request', ratios(results.full!, results.before!, (x) => x.cpuPerRequestMicros), 2, 'the change'),
          ]
        : []),
      loadAverageLine(loadAtStart),
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
