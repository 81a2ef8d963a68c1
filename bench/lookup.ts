/**
 * npm run bench:lookup — GET /api/v1/person?username= on a 1,000,000-person / 100,000-company lake,
 * through the full stack (auth, rate limit lifted for the bench workspace, validation, envelope),
 * next to a bare node:http + pg server running the single query that returns the same record (and
 * a variant of it using a prepared statement, as our lookups do, so the gain of that is visible).
 * Rounds alternate between the two; figures are medians.
 *
 * The lake lives in its own database `enrich_bench` (on DATABASE_URL's server, or the embedded
 * PostgreSQL under ENRICH_DATA_DIR) and is built once, then reused while its size and seed match.
 * Options: --persons=1000000 --companies=100000 --rounds=5 --seconds=10 --connections=32
 */
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config';
import { createKnex, ensureDatabase, migrateLatest, type Knex } from '../src/db/knex';
import { databaseUrl, startEmbeddedPostgres } from '../src/db/embedded';
import { seedLake } from '../src/domain/lake/seed';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { intArg, measure, median, startServerProcess, type Round } from './lib';

const BENCH_DATABASE = 'enrich_bench';
const SEED = 1;
const AS_OF = new Date('2026-11-01T00:00:00Z');

async function benchDatabaseUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  const config = loadConfig();
  if (config.databaseUrl) {
    const admin = new URL(config.databaseUrl);
    await ensureDatabase(admin.toString(), BENCH_DATABASE);
    admin.pathname = `/${BENCH_DATABASE}`;
    return { url: admin.toString(), stop: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({ dir: `${config.dataDir}/postgres`, port: config.embeddedPgPort });
  await ensureDatabase(embedded.adminUrl, BENCH_DATABASE);
  return { url: databaseUrl(embedded.adminUrl, BENCH_DATABASE), stop: () => embedded.stop() };
}

async function ensureLake(knex: Knex, persons: number, companies: number): Promise<void> {
  await knex.raw('create table if not exists bench_lake (persons integer, companies integer, seed integer)');
  const built = await knex('bench_lake').first();
  if (built && built.persons === persons && built.companies === companies && built.seed === SEED) {
    process.stderr.write(`reusing the lake in database ${BENCH_DATABASE}: ${persons} persons, ${companies} companies\n`);
    return;
  }
  await knex.raw('truncate persons, person_positions, person_educations, companies, bench_lake');
  process.stderr.write(`building the lake: ${persons} persons, ${companies} companies (once; later runs reuse it)\n`);
  let last = 0;
  const report = await seedLake(knex, { persons, companies, seed: SEED, asOf: AS_OF }, (p) => {
    if (Date.now() - last > 10_000 || p.done === p.total) {
      last = Date.now();
      process.stderr.write(`  ${p.kind}: ${p.done}/${p.total}\n`);
    }
  });
  await knex.raw('vacuum analyze persons, person_positions, person_educations, companies');
  await knex('bench_lake').insert({ persons, companies, seed: SEED });
  process.stderr.write(
    `built in ${(report.elapsed_ms / 1000).toFixed(0)} s (${Math.round(persons / (report.elapsed_ms / 1000))} persons/s incl. companies)\n`,
  );
}

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
  const results: Record<'full' | 'bare' | 'barePrepared', Round[]> = { full: [], bare: [], barePrepared: [] };
  try {
    await measure(full.url, { seconds: 3, connections, headers, requests });
    await measure(bare.url, { seconds: 3, connections, headers, requests });
    await measure(barePrepared.url, { seconds: 3, connections, headers, requests });
    for (let i = 0; i < rounds; i++) {
      results.full.push(await measure(full.url, { seconds, connections, headers, requests }));
      results.bare.push(await measure(bare.url, { seconds, connections, headers, requests }));
      results.barePrepared.push(await measure(barePrepared.url, { seconds, connections, headers, requests }));
      process.stderr.write(`round ${i + 1}/${rounds} done\n`);
    }
  } finally {
    await full.stop();
    await bare.stop();
    await barePrepared.stop();
    await db.stop();
  }
  const med = (r: Round[], f: (x: Round) => number) => median(r.map(f));
  const row = (name: string, r: Round[]) =>
    `${name.padEnd(30)} ${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(7)} req/s   p50 ${med(r, (x) => x.p50).toFixed(1)} ms   p99 ${med(r, (x) => x.p99).toFixed(1)} ms   non-2xx ${r.reduce((s, x) => s + x.non2xx, 0)}   errors ${r.reduce((s, x) => s + x.errors, 0)}`;
  const ratio = med(results.full, (x) => x.requestsPerSecond) / med(results.bare, (x) => x.requestsPerSecond);
  const p99Ratio = med(results.full, (x) => x.p99) / Math.max(med(results.bare, (x) => x.p99), 0.001);
  const preparedRatio =
    med(results.full, (x) => x.requestsPerSecond) / med(results.barePrepared, (x) => x.requestsPerSecond);
  process.stdout.write(
    [
      `GET /api/v1/person?username= over ${persons} persons / ${companies} companies, ${usernames.length} distinct usernames,`,
      `${connections} connections, ${rounds} alternating rounds of ${seconds}s (medians)`,
      row('full stack', results.full),
      row('bare node:http + pg', results.bare),
      row('bare, prepared statement', results.barePrepared),
      `ratio full/bare requests/s: ${ratio.toFixed(3)} (aim >= 0.75)`,
      `ratio full/bare p99: ${p99Ratio.toFixed(2)} (aim < 2)`,
      `ratio full/bare-prepared requests/s: ${preparedRatio.toFixed(3)} (the same query plan on both sides)`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
