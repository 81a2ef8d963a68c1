/**
 * npm run bench:lookup — GET /api/v1/person?username= on a 1,000,000-person / 100,000-company lake,
 * through the full stack (auth, rate limit lifted for the bench workspace, validation, envelope),
 * next to a bare node:http + pg server running the single query that returns the same record (and
 * a variant of it using a prepared statement, as our lookups do, so the gain of that is visible),
 * and Fastify 5 with a JSON-schema querystring, the same prepared query and the same envelope
 * (bench/servers/fastifyPersonLookup.ts), the permanent mainstream-framework anchor of issue 14.
 * Rounds alternate between the servers; figures are medians. Each server's CPU time per answered
 * request (user + system, from /proc) is measured over the same rounds. The PostgreSQL version and
 * settings are printed with the figures.
 *
 * The lake lives in its own database `enrich_bench` (on DATABASE_URL's server, or the embedded
 * PostgreSQL under ENRICH_DATA_DIR) and is built once, then reused while its size and seed match.
 * Options: --persons=1000000 --companies=100000 --rounds=5 --seconds=10 --connections=32
 */
import type autocannon from 'autocannon';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, measure, measureServer, median, postgresSettingsLine, startServerProcess, type Round } from './lib';

async function main() {
  const persons = intArg('persons', 1_000_000);
  const companies = intArg('companies', 100_000);
  const rounds = intArg('rounds', 5);
  const seconds = intArg('seconds', 10);
  const connections = intArg('connections', 32);

  const db = await benchDatabaseUrl();
  const knex = createKnex(db.url);
  let usernames: string[];
  let key: string;
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, companies);
    const workspace = await createWorkspace(knex, { name: `bench-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
    key = workspace.api_key;
    const { rows } = await knex.raw<{ rows: { username: string }[] }>(
      'select username from persons tablesample system (2) repeatable (7) limit 20000',
    );
    usernames = rows.map((r) => r.username);
  } finally {
    await knex.destroy();
  }

  const env = { DATABASE_URL: db.url };
  const full = await startServerProcess('fullStack.ts', env);
  const bare = await startServerProcess('barePersonLookup.ts', env);
  const barePrepared = await startServerProcess('barePersonLookup.ts', { ...env, BARE_PREPARED: '1' });
  const fastify = await startServerProcess('fastifyPersonLookup.ts', env);
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
  type Measured = Round & { cpuPerRequestMicros: number };
  const servers = { full, fastify, bare, barePrepared };
  const results: Record<keyof typeof servers, Measured[]> = { full: [], fastify: [], bare: [], barePrepared: [] };
  try {
    for (const server of Object.values(servers)) await measure(server.url, { seconds: 3, connections, headers, requests });
    for (let i = 0; i < rounds; i++) {
      for (const [name, server] of Object.entries(servers) as [keyof typeof servers, (typeof servers)['full']][]) {
        results[name].push(await measureServer(server, { seconds, connections, headers, requests }));
      }
      process.stderr.write(`round ${i + 1}/${rounds} done\n`);
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    await db.stop();
  }
  const med = (r: Measured[], f: (x: Measured) => number) => median(r.map(f));
  const row = (name: string, r: Measured[]) =>
    `${name.padEnd(30)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(7)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   CPU ${med(r, (x) => x.cpuPerRequestMicros).toFixed(0)} µs/req   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}   errors ${r.reduce((s, x) => s + x.errors, 0)}`;
  const vsFastify = (f: (x: Measured) => number) => med(results.full, f) / med(results.fastify, f);
  const ratio = med(results.full, (x) => x.requestsPerSecond) / med(results.bare, (x) => x.requestsPerSecond);
  const p99Ratio = med(results.full, (x) => x.p99) / Math.max(med(results.bare, (x) => x.p99), 0.001);
  const preparedRatio =
    med(results.full, (x) => x.requestsPerSecond) / med(results.barePrepared, (x) => x.requestsPerSecond);
  process.stdout.write(
    [
      `GET /api/v1/person?username= over ${persons} persons / ${companies} companies, ${usernames.length} distinct usernames,`,
      `${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      settings,
      row('full stack', results.full),
      row('Fastify 5 (same query, envelope)', results.fastify),
      row('bare node:http + pg', results.bare),
      row('bare, prepared statement', results.barePrepared),
      `ratio full/bare requests/s: ${ratio.toFixed(3)} (aim >= 0.75)`,
      `ratio full/bare p99: ${p99Ratio.toFixed(2)} (aim < 2)`,
      `ratio full/bare-prepared requests/s: ${preparedRatio.toFixed(3)} (the same query plan on both sides)`,
      `ratio full/Fastify requests/s: ${vsFastify((x) => x.requestsPerSecond).toFixed(3)} (aim >= 0.9)`,
      `ratio full/Fastify CPU per request: ${vsFastify((x) => x.cpuPerRequestMicros).toFixed(2)} (aim <= 1.3)`,
      `ratio full/Fastify p99: ${vsFastify((x) => x.p99).toFixed(2)} (aim <= 1.3)`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
