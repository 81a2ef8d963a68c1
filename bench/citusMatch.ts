/**
 * npm run bench:citus:match — what matching (issue 33) costs on the distributed layout: the same
 * lake in a single PostgreSQL 15 and in a Citus cluster (a coordinator and two workers of the same
 * PostgreSQL 15, `enrich distribute`), both started here in temporary directories on loopback
 * (test/citus/cluster.ts; needs the citus extension for /usr/lib/postgresql/15, docs/scale-out.md).
 *
 * The lake: the synthetic world (seedLake, renamed companies' former names in the change log), the
 * last 2% of its persons held back (absent people), as bench:match builds it. The queries: the
 * labelled generator of bench:match (src/world/matchQueries.ts, every noise class), sent through
 * the full stack (createApp over a loopback HTTP server, bench/citusTargets.ts) one at a time, each
 * query to one topology then the other (the order alternating), so both see the same machine load.
 * Printed per query group: p50 and p95 of wall time per request on each topology and the ratio
 * distributed ÷ single node, and how many answers differ between the two (the same lake must give
 * the same answers); then bulks of 100 (POST /people/bulk-match). The load average is printed with
 * them: on a shared machine the absolute figures move with it, the ratio much less.
 *
 * Options: --persons=20000 --companies=<persons/10> --shards=32 --count=600 --company-count=200
 *   --bulk=5 (batches of 100) --seed=11 --citus-set=<setting=value,...> (database-level settings of
 *   the cluster's database, e.g. citus.max_adaptive_executor_pool_size=1, printed with the figures)
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { applyDistributedLayout } from '../src/db/citusLayout';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorld } from '../src/world';
import { COMPANY_NOISE, PERSON_NOISE, generateCompanyMatchQueries, generateMatchQueries, type LabelledQuery } from '../src/world/matchQueries';
import { seedLake } from '../src/world/seed';
import { citusUnavailable, startCitusCluster, startPlainNode } from '../test/citus/cluster';
import { serve, type Target } from './citusTargets';
import { AS_OF, SEED, intArg, percentile, stringArg } from './lib';

interface Timed {
  ms: number;
  /** The matched record's id (200), or the error code. */
  answer: string;
}

async function post(t: Target, path: string, body: unknown): Promise<Timed & { body: any }> {
  const started = performance.now();
  const res = await fetch(`${t.base}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const parsed = (await res.json()) as any;
  const ms = performance.now() - started;
  if (res.status >= 500) throw new Error(`${t.name} POST ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return { ms, answer: res.status === 200 ? String(parsed?.data?.id ?? parsed?.matched) : String(parsed?.code), body: parsed };
}

const fmt = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const why = citusUnavailable();
  if (why) {
    console.log(`bench:citus:match: ${why}`);
    return;
  }
  const persons = intArg('persons', 20_000);
  const companies = intArg('companies', Math.max(50, Math.floor(persons / 10)));
  const shards = intArg('shards', 32);
  const count = intArg('count', 600);
  const companyCount = intArg('company-count', 200);
  const bulks = intArg('bulk', 5);
  const seed = intArg('seed', 11);
  const loaded = persons - Math.floor(persons / 50);
  const world = { persons, companies, seed: SEED, asOf: AS_OF };
  const citusSettings = (stringArg('citus-set') ?? '').split(',').filter(Boolean).map((kv) => {
    const m = /^([a-z_.]+)=([A-Za-z0-9_.-]+)$/.exec(kv);
    if (!m) throw new Error(`--citus-set: not setting=value: ${kv}`);
    return [m[1]!, m[2]!] as const;
  });

  const cluster = await startCitusCluster();
  const single = await startPlainNode();
  const targets: Target[] = [];
  try {
    for (const [name, url] of [
      ['single', single.url],
      ['citus', cluster.url],
    ] as const) {
      const started = performance.now();
      const knex = createKnex(url, 4);
      await migrateLatest(knex);
      // Laid out before the load, as an operator does (enrich migrate, enrich distribute, enrich import).
      if (name === 'citus') {
        await applyDistributedLayout(knex, { shardCount: shards });
        for (const [setting, value] of citusSettings) await knex.raw(`alter database ${cluster.database} set ${setting} = '${value}'`);
      }
      await seedLake(knex, { ...world, loadPersons: loaded });
      await knex.raw('analyze');
      await knex.destroy();
      process.stderr.write(`${name}: lake loaded in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      targets.push(await serve(name, url));
    }
    const generator = createWorld(world);
    const personQueries = generateMatchQueries(generator, { seed, count, loadedPersons: loaded });
    const companyQueries = generateCompanyMatchQueries(generator, { seed, count: companyCount });

    const times = new Map<string, number[]>();
    const record = (group: string, target: string, ms: number) => {
      const k = `${group}\u0000${target}`;
      times.set(k, [...(times.get(k) ?? []), ms]);
    };
    const differ = new Map<string, number>();
    const groups: string[] = [];
    const run = async <Q extends object>(queries: LabelledQuery<Q>[], path: string, groupOf: (noise: string) => string) => {
      // Warm each topology's connections and plans first.
      for (const q of queries.slice(0, 20)) for (const t of targets) await post(t, path, q.query);
      for (const [i, q] of queries.entries()) {
        const group = groupOf(q.noise);
        if (!groups.includes(group)) groups.push(group);
        const order = i % 2 === 0 ? targets : [...targets].reverse();
        const answers: string[] = [];
        for (const t of order) {
          const r = await post(t, path, q.query);
          record(group, t.name, r.ms);
          record(path === '/person/match' ? 'person: all' : 'company: all', t.name, r.ms);
          answers.push(r.answer);
        }
        if (answers[0] !== answers[1]) differ.set(group, (differ.get(group) ?? 0) + 1);
      }
    };
    const loadBefore = os.loadavg().map((l) => l.toFixed(1)).join(' ');
    await run(personQueries, '/person/match', (n) => `person: ${PERSON_NOISE[n as keyof typeof PERSON_NOISE]}`);
    await run(companyQueries, '/company/match', (n) => `company: ${COMPANY_NOISE[n as keyof typeof COMPANY_NOISE]}`);
    for (let b = 0; b < bulks && b * 100 < personQueries.length; b++) {
      const batch = personQueries.slice(b * 100, b * 100 + 100).map((q) => q.query);
      for (const t of b % 2 === 0 ? targets : [...targets].reverse()) record('bulk of 100', t.name, (await post(t, '/people/bulk-match', { queries: batch })).ms);
    }
    groups.push('person: all', 'company: all', 'bulk of 100');

    console.log(
      `bench:citus:match  ${loaded} of ${persons} persons loaded, ${companies} companies; citus: coordinator + 2 workers, ${shards} shards; ` +
        `${personQueries.length} person and ${companyQueries.length} company queries (seed ${seed}), ${bulks} bulks of 100` +
        (citusSettings.length ? `; citus database settings: ${citusSettings.map(([k, v]) => `${k}=${v}`).join(', ')}` : ''),
    );
    console.log(`load average ${loadBefore} before, ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} after, on ${os.cpus().length} cores`);
    console.log(['group'.padEnd(20), 'n'.padStart(5), 'single p50'.padStart(11), 'p95'.padStart(7), 'citus p50'.padStart(10), 'p95'.padStart(7), 'ratio p50'.padStart(10), 'p95'.padStart(6), 'answers differ'.padStart(15)].join(''));
    for (const group of groups) {
      const s = [...(times.get(`${group}\u0000single`) ?? [])].sort((a, b) => a - b);
      const c = [...(times.get(`${group}\u0000citus`) ?? [])].sort((a, b) => a - b);
      if (s.length === 0) continue;
      const [s50, s95, c50, c95] = [percentile(s, 50), percentile(s, 95), percentile(c, 50), percentile(c, 95)];
      console.log(
        [
          group.padEnd(20), String(s.length).padStart(5), fmt(s50).padStart(11), fmt(s95).padStart(7), fmt(c50).padStart(10), fmt(c95).padStart(7),
          (c50 / s50).toFixed(2).padStart(10), (c95 / s95).toFixed(2).padStart(6),
          (group === 'bulk of 100' ? '' : group.endsWith(': all') ? '' : String(differ.get(group) ?? 0)).padStart(15),
        ].join(''),
      );
    }
    console.log('latencies in ms per request (wall time through HTTP); ratio = citus / single');
  } finally {
    for (const t of targets) await t.close().catch(() => undefined);
    cluster.stop();
    single.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
