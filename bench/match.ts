/**
 * npm run bench:match — how well person and company matching does (issue 33, "How well, measured"),
 * on a lake seeded from the synthetic world, with labelled queries made from the same world
 * (src/world/matchQueries.ts: seeded, the noise real lists carry, absent and ambiguous people).
 *
 * 1. Lake: the database `enrich_bench_match_<persons>` (DATABASE_URL's server, or the embedded
 *    PostgreSQL under ENRICH_DATA_DIR), built once (bench/matchLake.ts: by seedLake below 100,000
 *    persons, from 100,000 on the companies by seedLake and the persons by an initial-load import;
 *    `--lake-build=seed|import` to choose; `--lake-only` builds it and stops) and reused while its
 *    size, seed, loaded count and a digest of sample records match (another version of the
 *    generator rebuilds it). The last 2% of the
 *    world's persons are not loaded: they are the `absent_unloaded` people (real-looking persons at
 *    real companies whom the lake does not hold).
 * 2. Queries: `--count` person queries and `--company-count` company queries, from `--seed` (default
 *    11; the calibration is fitted on another seed: the figures hold for seeds it never saw) and
 *    `--mix` ("typo=2,absent=1": only the classes named, with these weights; default every class).
 * 3. Passes, through the real server in a child process (bench/servers/fullStack.ts), one request at
 *    a time: every query at the default min_likelihood (the answers judged: precision, recall, false
 *    matches; their latency is the single-match latency), then again with min_likelihood 0 (the best
 *    candidate whatever its likelihood: the calibration), then the person queries in bulks of 100
 *    (POST /people/bulk-match; the bulk latency; their outcomes must agree with the single ones).
 * 4. Prints per noise class, per group and overall: n, precision, recall, false-match rate (absent),
 *    precision of the answers with likelihood >= 0.9, ECE over 10 bins; latency p50/p95; the load
 *    average and PostgreSQL settings; the issue's aims beside the figures (printed, never asserted).
 *
 * Options: --persons=100000 --companies=<persons/10> (--1m: 1,000,000 / 100,000) --seed=11
 *   --count=3000 --company-count=600 --mix=<class=weight,...> --company-mix=<...> --bulk=20 (batches of 100)
 * The machine is shared: run at 100k unless it is quiet; 1M builds a lake of several GB.
 */
import os from 'node:os';
import { createKnex, migrateLatest, type Knex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { createWorld, type World } from '../src/world';
import {
  COMPANY_NOISE, PERSON_NOISE, generateCompanyMatchQueries, generateMatchQueries, labelAmbiguousPersons, parseMix, rivalKeysOf,
  type LabelledQuery,
} from '../src/world/matchQueries';
import { defaultLakeBuild, ensureMatchLake, lakeNamesAndRivals, loadedOf, type LakeBuild } from './matchLake';
import pg from 'pg';
import { benchDatabaseUrl, AS_OF, cpuMicros, flagArg, intArg, percentile, postgresSettingsLine, startServerProcess, stringArg, SEED } from './lib';
import { CONFIDENT, TABLE_HEADER, figures, figuresBy, tableRow, type Figures, type Outcome } from './matchMetrics';

const REQUEST_TIMEOUT_MS = 30_000;

/** The issue's aims (printed beside the figures, never asserted). */
const AIMS = {
  confidentPrecision: 0.99,
  recallCompanyOrEmail: 0.95,
  recallLocationOrSchool: 0.8,
  falseMatchRate: 0.005,
  ece: 0.05,
  singleP95Ms: 25,
  bulkP95Ms: 1000,
};

interface Answer {
  status: number;
  id: string | null;
  likelihood: number | null;
  code?: string;
}

async function post(url: string, key: string, body: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { code: `unparsable body: ${text.slice(0, 80)}` };
  }
  return { status: res.status, body: parsed, ms };
}

function answerOf(status: number, body: any): Answer {
  if (status === 200) return { status, id: body?.data?.id ?? null, likelihood: body?.match?.likelihood ?? null };
  return { status, id: null, likelihood: null, code: body?.code };
}

/** One item of a bulk-match response (contract: the bulk envelope; status matched | unmatched | failed). */
function bulkItemOf(item: any): Answer {
  const matched = item?.status === 'matched' || item?.status === 200;
  if (matched) return { status: 200, id: item?.data?.id ?? null, likelihood: item?.likelihood ?? item?.match?.likelihood ?? null };
  const unmatched = item?.status === 'unmatched' || item?.status === 404;
  return { status: unmatched ? 404 : 400, id: null, likelihood: null, code: item?.error?.code ?? item?.code };
}

interface PassResult {
  outcomes: Outcome[];
  latencies: number[];
}

/** Both passes of one kind of query: default min_likelihood (judged, timed) and min_likelihood 0 (calibration). */
async function runPasses<Q extends object>(base: string, path: string, key: string, queries: LabelledQuery<Q>[], label: string): Promise<PassResult> {
  const latencies: number[] = [];
  const outcomes: Outcome[] = [];
  let done = 0;
  for (const q of queries) {
    const first = await post(`${base}${path}`, key, q.query);
    latencies.push(first.ms);
    const a = answerOf(first.status, first.body);
    const second = await post(`${base}${path}`, key, { ...q.query, min_likelihood: 0 });
    const b = answerOf(second.status, second.body);
    const failed = (x: Answer) => x.status !== 200 && !(x.status === 404 && x.code === 'NO_MATCH');
    outcomes.push({
      noise: q.noise,
      expectedId: q.expectedId,
      answeredId: a.status === 200 ? a.id : null,
      likelihood: a.status === 200 ? a.likelihood : null,
      best: b.status === 200 && b.id !== null && b.likelihood !== null ? { id: b.id, likelihood: b.likelihood } : null,
      ...(failed(a) ? { error: `${a.status} ${a.code ?? ''}` } : failed(b) ? { error: `${b.status} ${b.code ?? ''} (min_likelihood 0)` } : {}),
    });
    if (++done % 500 === 0) process.stderr.write(`  ${label}: ${done}/${queries.length} (load ${os.loadavg()[0]!.toFixed(1)})\n`);
  }
  latencies.sort((x, y) => x - y);
  return { outcomes, latencies };
}

function printTable(title: string, outcomes: Outcome[], groupOf: (noise: string) => string): Map<string, Figures> {
  const lines = ['', title, TABLE_HEADER];
  const byClass = figuresBy(outcomes, (o) => o.noise);
  for (const [name, f] of [...byClass].sort((a, b) => groupOf(a[0]).localeCompare(groupOf(b[0])) || a[0].localeCompare(b[0]))) lines.push(tableRow(name, f));
  lines.push('-- by group');
  const byGroup = figuresBy(outcomes, (o) => groupOf(o.noise));
  for (const [name, f] of byGroup) lines.push(tableRow(`[${name}]`, f));
  lines.push(tableRow('overall', figures(outcomes)));
  process.stdout.write(`${lines.join('\n')}\n`);
  return byGroup;
}

/**
 * CPU time (µs) used so far by the server process and by the PostgreSQL backends connected to the
 * lake's database (Linux /proc; the server is on this machine): CPU per match does not grow with
 * the machine's load as wall time does. A backend that exits between two readings loses its share.
 */
async function cpuNow(url: string, serverPid: number): Promise<{ server: number; backends: Map<number, number> }> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 10_000, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    const backends = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        backends.set(pid, cpuMicros(pid));
      } catch {
        // gone since
      }
    }
    return { server: cpuMicros(serverPid), backends };
  } finally {
    await client.end();
  }
}

function cpuSince(before: Awaited<ReturnType<typeof cpuNow>>, after: Awaited<ReturnType<typeof cpuNow>>): { server: number; postgres: number } {
  let postgres = 0;
  for (const [pid, us] of after.backends) postgres += us - (before.backends.get(pid) ?? 0);
  return { server: after.server - before.server, postgres };
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const fmtPct = (x: number) => `${(x * 100).toFixed(2)}%`;

async function main(): Promise<void> {
  const big = flagArg('1m');
  const persons = intArg('persons', big ? 1_000_000 : 100_000);
  const companies = intArg('companies', big ? 100_000 : Math.max(1, Math.floor(persons / 10)));
  const seed = intArg('seed', 11);
  const count = intArg('count', 3000);
  const companyCount = intArg('company-count', 600);
  const bulkBatches = intArg('bulk', 20);
  const mixText = stringArg('mix');
  const companyMixText = stringArg('company-mix');
  const mix = mixText ? parseMix(mixText, Object.keys(PERSON_NOISE)) : undefined;
  const companyMix = companyMixText ? parseMix(companyMixText, Object.keys(COMPANY_NOISE)) : undefined;
  const buildText = stringArg('lake-build');
  if (buildText !== undefined && buildText !== 'seed' && buildText !== 'import') throw new Error(`--lake-build=${buildText}: seed or import`);
  const lakeBuild: LakeBuild = (buildText as LakeBuild | undefined) ?? defaultLakeBuild(persons);
  const lakeOnly = flagArg('lake-only');

  const world: World = createWorld({ persons, companies, seed: SEED, asOf: AS_OF });
  const db = await benchDatabaseUrl(process.env.BENCH_MATCH_DATABASE || `enrich_bench_match_${persons}`);
  try {
    const knex = createKnex(db.url);
    let key: string;
    try {
      await migrateLatest(knex);
      await ensureMatchLake(knex, world, lakeBuild);
      const workspace = await createWorkspace(knex, { name: `bench-match-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
      key = workspace.api_key;
    } finally {
      await knex.destroy();
    }
    if (lakeOnly) {
      process.stdout.write(`lake ready: ${new URL(db.url).pathname.slice(1)}\n`);
      return;
    }

    const loaded = loadedOf(persons);
    let started = Date.now();
    // The queries made from a person do not depend on isTakenName (only the absent ones do): a first
    // draw without it says whose rivals to read.
    const wanted = rivalKeysOf(world, generateMatchQueries(world, { seed, count, mix, loadedPersons: loaded }));
    const { names, rivals } = await lakeNamesAndRivals(db.url, wanted);
    const personQueries = labelAmbiguousPersons(
      world, generateMatchQueries(world, { seed, count, mix, loadedPersons: loaded, isTakenName: (n) => names.has(n) }), (k) => rivals.get(k) ?? [],
    );
    const companyQueries = generateCompanyMatchQueries(world, { seed, count: companyCount, mix: companyMix });
    process.stderr.write(`${personQueries.length} person and ${companyQueries.length} company queries made in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    const loadBefore = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    const settings = await postgresSettingsLine(db.url);
    const server = await startServerProcess('fullStack.ts', { DATABASE_URL: db.url });
    const base = `${server.url}/api/v1`;
    let person: PassResult;
    let company: PassResult;
    const bulkLatencies: number[] = [];
    let personCpu = { server: NaN, postgres: NaN };
    let bulkCpu = { server: NaN, postgres: NaN };
    let bulkDisagree = 0;
    let bulkItems = 0;
    try {
      process.stderr.write('warming up: 50 queries\n');
      for (const q of personQueries.slice(0, 50)) await post(`${base}/person/match`, key, q.query);
      started = Date.now();
      const cpu0 = await cpuNow(db.url, server.child.pid!);
      person = await runPasses(base, '/person/match', key, personQueries, 'person');
      const cpu1 = await cpuNow(db.url, server.child.pid!);
      personCpu = cpuSince(cpu0, cpu1);
      company = await runPasses(base, '/company/match', key, companyQueries, 'company');
      const cpu2 = await cpuNow(db.url, server.child.pid!);
      for (let b = 0; b < bulkBatches && b * 100 < personQueries.length; b++) {
        const batch = personQueries.slice(b * 100, b * 100 + 100);
        const res = await post(`${base}/people/bulk-match`, key, { queries: batch.map((q) => q.query) });
        bulkLatencies.push(res.ms);
        const results: any[] = Array.isArray(res.body?.results) ? res.body.results : [];
        if (res.status !== 200 || results.length !== batch.length) {
          bulkDisagree += batch.length;
          bulkItems += batch.length;
          continue;
        }
        results.forEach((item, k) => {
          const single = person.outcomes[b * 100 + k]!;
          const a = bulkItemOf(item);
          bulkItems++;
          if ((a.status === 200 ? a.id : null) !== single.answeredId) bulkDisagree++;
        });
      }
      bulkLatencies.sort((x, y) => x - y);
      bulkCpu = cpuSince(cpu2, await cpuNow(db.url, server.child.pid!));
    } finally {
      await server.stop();
    }

    const groupOfPerson = (noise: string) => PERSON_NOISE[noise as keyof typeof PERSON_NOISE] ?? '?';
    const groupOfCompany = (noise: string) => COMPANY_NOISE[noise as keyof typeof COMPANY_NOISE] ?? '?';
    process.stdout.write(
      [
        '',
        `bench:match — lake of ${loaded.toLocaleString('en')} of the world's ${persons.toLocaleString('en')} persons, ${companies.toLocaleString('en')} companies (world seed ${SEED}); query seed ${seed}; mix ${mixText ?? 'default'}${companyMixText ? `; company mix ${companyMixText}` : ''}`,
        `Load average before / after: ${loadBefore} / ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}; passes took ${((Date.now() - started) / 1000).toFixed(0)} s`,
        settings,
        'Columns: prec = right answers / answers at the default min_likelihood (absent people answered are wrong); recall = right answers / queries',
        'for a lake record; false = absent people answered / absent people; prec@.9 = precision of answers with likelihood >= 0.9;',
        'ECE = expected calibration error of the best candidate (min_likelihood 0) over 10 bins.',
        ...(persons !== 1_000_000 ? [`The latency aims are for the 1,000,000-person lake; this one has ${persons.toLocaleString('en')}.`] : []),
      ].join('\n') + '\n',
    );
    const personGroups = printTable(`Person match (${person.outcomes.length} queries)`, person.outcomes, groupOfPerson);
    const madeAs = new Map<string, number>();
    for (const q of personQueries) if (q.madeAs !== undefined) madeAs.set(q.madeAs, (madeAs.get(q.madeAs) ?? 0) + 1);
    process.stdout.write(`ambiguous_rival (another loaded person fits the query as well), made as: ${[...madeAs].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}\n`);
    printTable(`Company match (${company.outcomes.length} queries)`, company.outcomes, groupOfCompany);

    const all = figures(person.outcomes);
    const companyRecall = figures(person.outcomes.filter((o) => ['company', 'email'].includes(groupOfPerson(o.noise)))).recall;
    const locationRecall = personGroups.get('location')?.recall ?? NaN;
    const absentRate = personGroups.get('absent')?.falseMatchRate ?? NaN;
    const p = (xs: number[], q: number) => percentile(xs, q).toFixed(1);
    const lines = [
      '',
      `Latency, one request at a time: single person match p50 ${p(person.latencies, 50)} ms, p95 ${p(person.latencies, 95)} ms (${person.latencies.length});` +
        ` company match p50 ${p(company.latencies, 50)} ms, p95 ${p(company.latencies, 95)} ms;` +
        ` bulk of 100 p50 ${p(bulkLatencies, 50)} ms, p95 ${p(bulkLatencies, 95)} ms (${bulkLatencies.length} bulks)`,
      `CPU per person match request (both passes, ${2 * person.latencies.length} requests): server ${(personCpu.server / 2000 / person.latencies.length).toFixed(2)} ms + PostgreSQL ${(personCpu.postgres / 2000 / person.latencies.length).toFixed(2)} ms;` +
        ` per bulk of 100: server ${(bulkCpu.server / 1000 / Math.max(1, bulkLatencies.length)).toFixed(1)} ms + PostgreSQL ${(bulkCpu.postgres / 1000 / Math.max(1, bulkLatencies.length)).toFixed(1)} ms (CPU time does not grow with the load as latency does)`,
      `Bulk items whose outcome differs from the single request: ${bulkDisagree} of ${bulkItems}`,
      '',
      'Aims (issue 33):',
      `  precision of answers with likelihood >= ${CONFIDENT}: ${fmtPct(all.confidentPrecision)} (aim >= ${fmtPct(AIMS.confidentPrecision)}): ${verdict(all.confidentPrecision >= AIMS.confidentPrecision)}`,
      `  recall, name + company / domain / work email: ${fmtPct(companyRecall)} (aim >= ${fmtPct(AIMS.recallCompanyOrEmail)}): ${verdict(companyRecall >= AIMS.recallCompanyOrEmail)}`,
      `  recall, name + location or school: ${fmtPct(locationRecall)} (aim >= ${fmtPct(AIMS.recallLocationOrSchool)}): ${verdict(locationRecall >= AIMS.recallLocationOrSchool)}`,
      `  false matches on absent people: ${fmtPct(absentRate)} (aim <= ${fmtPct(AIMS.falseMatchRate)}): ${verdict(absentRate <= AIMS.falseMatchRate)}`,
      `  calibration error (ECE, 10 bins): ${all.ece.toFixed(3)} (aim <= ${AIMS.ece}): ${verdict(all.ece <= AIMS.ece)}`,
      `  single match p95: ${p(person.latencies, 95)} ms (aim <= ${AIMS.singleP95Ms} ms at 1M): ${persons === 1_000_000 ? verdict(percentile(person.latencies, 95) <= AIMS.singleP95Ms) : 'not a verdict at this size'}`,
      `  bulk of 100 p95: ${p(bulkLatencies, 95)} ms (aim <= ${AIMS.bulkP95Ms} ms at 1M): ${persons === 1_000_000 ? verdict(percentile(bulkLatencies, 95) <= AIMS.bulkP95Ms) : 'not a verdict at this size'}`,
    ];
    // The absent people answered, with what was answered (a few at most: each one is worth a look).
    const falseMatches = person.outcomes.map((o, k) => ({ o, q: personQueries[k]! })).filter(({ o }) => o.expectedId === null && o.answeredId !== null);
    if (falseMatches.length) {
      lines.push('', 'Absent people answered (query -> answer, likelihood):');
      for (const { o, q } of falseMatches.slice(0, 20)) lines.push(`  ${q.noise} ${JSON.stringify(q.query)} -> ${o.answeredId} ${o.likelihood}`);
    }
    const errors = [...person.outcomes, ...company.outcomes].filter((o) => o.error !== undefined);
    if (errors.length) {
      lines.push('', `${errors.length} queries failed (not 200 nor 404 NO_MATCH), e.g. ${[...new Set(errors.map((e) => e.error))].slice(0, 5).join('; ')}`);
      process.exitCode = 1;
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
