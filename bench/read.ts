/**
 * npm run bench:read — the published read mix (search, relationships, bulk) on the 1,000,000-person /
 * 100,000-company lake of bench:lookup, through the full stack, with p50/p95/p99 and requests/s.
 *
 * 1. Lake: the database `enrich_bench` (DATABASE_URL's server, or the embedded PostgreSQL under
 *    ENRICH_DATA_DIR), built once and reused while its size and seed match (bench/lib.ts).
 * 2. Parameters: picked from the lake by deterministic queries and printed: the company with the
 *    most current employees, a person working there, the most common school, a sampled name, the
 *    two most common industries, 100 mixed identifiers (4 unknown) and 500 ids.
 * 3. EXPLAIN check (exit 1 on failure): an in-process app on the bench database answers every
 *    request of the mix once; each statement it sends that reads a lake table is explained with
 *    its own bindings, and a `Seq Scan` on `persons` anywhere in a plan fails the check. The mix
 *    and the check live in bench/readMix.ts; test/integration/lake/explainGate.test.ts runs the
 *    same check on a small world in CI, so a lost index fails the tests, not only this bench.
 * 4. Measurements: the real server in a child process; per entry, `rounds` autocannon runs of
 *    `seconds` (entries interleaved within a round), medians printed next to each group's aim; then
 *    one combined run cycling through the whole mix. Every response must be a 200: anything else is
 *    reported and makes the exit code 1. The aims are printed, never asserted.
 *
 * Options: --rounds=3 --seconds=8 --connections=16 --mix-seconds=20 --persons=1000000
 *   --companies=100000 --only=<substring>[,<substring>] (entries whose name contains one)
 *   --explain-only (stop after the EXPLAIN check) --skip-explain (measure even when it fails)
 *   --analyze (EXPLAIN ANALYZE the reads: each statement's execution time and row counts)
 * A plan line marked 'note' has a sequential scan of another table, or reads a whole index of
 * persons without a Limit above it: not a failure, but worth a look.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type autocannon from 'autocannon';
import pg from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createKnex, migrateLatest } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { createLogger } from '../src/logger';
import {
  benchDatabaseUrl,
  ensureLake,
  flagArg,
  intArg,
  measure,
  median,
  percentile,
  postgresSettingsLine,
  startServerProcess,
  stringArg,
  type Round,
} from './lib';
import { AIMS, explainMix, pickParameters, readMix, type Checked, type Entry, type Group, type Parameters } from './readMix';


/** "aim p95 <= 100 ms: met" beside a figure, or "(no aim)". */
function aimText(group: Group, p95: number): string {
  const aim = AIMS[group];
  if (aim === undefined) return '(no aim)';
  return `aim p95 <= ${aim} ms: ${!Number.isFinite(p95) ? 'not measured' : p95 <= aim ? 'met' : 'MISSED'}`;
}

function printParameters(p: Parameters, entries: Entry[]): void {
  const out = [
    'Parameters (picked from the lake):',
    `  company        ${p.company.company_id} "${p.company.name}", ${p.company.employees} current employees`,
    `  subject        ${p.subject.username} (${p.subject.id}): ${p.subject.full_name}, ${p.subject.seniority}, ${p.subject.industry}, ${p.subject.country}`,
    `  school         "${p.school.name}" (${p.school.alumni} educations)`,
    `  full-text      "${p.fullText}"; many matches "${p.commonWords}"`,
    `  industries     ${p.industries.map((i) => `"${i}"`).join(', ')}`,
    `  bulk-enrich    ${p.mixed.length} profiles: ${p.mixed.filter((m) => m.network_url).length} network_url, ${p.mixed.filter((m) => m.username).length} username, ${p.mixed.filter((m) => m.id).length} id (4 not in the lake), first ${JSON.stringify(p.mixed[0])}`,
    `  bulk           ${p.ids.length} ids, ${p.ids[0]} .. ${p.ids[p.ids.length - 1]}`,
    'Mix:',
    ...entries.map(
      (e) => `  ${e.name.padEnd(30)} ${e.method} ${e.path}${e.body && !/bulk/.test(e.name) ? ` ${JSON.stringify(e.body)}` : ''}`,
    ),
    '',
  ];
  process.stdout.write(out.join('\n'));
}

// ---------------------------------------------------------------------------------------------
// EXPLAIN check (bench/readMix.ts, shared with test/integration/lake/explainGate.test.ts)

async function explainCheck(dbUrl: string, key: string, entries: Entry[], analyze: boolean): Promise<Checked[]> {
  const knex = createKnex(dbUrl, 4);
  const app = await createApp({
    config: { ...loadConfig(), logLevel: 'silent' },
    knex,
    logger: createLogger('silent'),
  });
  const server = http.createServer(app.koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const explainer = new pg.Client({ connectionString: dbUrl, application_name: 'bench-read-explain' });
  await explainer.connect();
  try {
    return await explainMix({
      knex,
      explainer,
      entries,
      analyze,
      log: (text) => process.stdout.write(text),
      send: async (entry) => {
        const res = await fetch(`${base}${entry.path}`, {
          method: entry.method,
          headers: { authorization: `Bearer ${key}`, ...(entry.body ? { 'content-type': 'application/json' } : {}) },
          body: entry.body ? JSON.stringify(entry.body) : undefined,
        });
        const text = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        return { status: res.status, body };
      },
    });
  } finally {
    await explainer.end();
    await new Promise((r) => server.close(r));
    await app.close();
    await knex.destroy();
  }
}

function reportExplain(checked: Checked[]): boolean {
  const failures = checked.flatMap((c) => c.seqScans.map((s) => ({ entry: c.entry, ...s })));
  const unchecked = checked.filter((c) => c.status !== 200);
  if (unchecked.length) {
    process.stdout.write(
      `\nEXPLAIN: ${unchecked.length} entr${unchecked.length === 1 ? 'y' : 'ies'} did not answer 200, so their queries were not checked:\n` +
        unchecked.map((c) => `  ${c.entry.name}: ${c.summary}\n`).join(''),
    );
  }
  if (!failures.length) {
    process.stdout.write(`\nEXPLAIN: no sequential scan of persons in ${checked.length - unchecked.length} checked entries\n\n`);
    return true;
  }
  process.stdout.write(`\nEXPLAIN FAILED: ${failures.length} statement(s) scan the persons table sequentially\n`);
  for (const f of failures) {
    const bindings = JSON.stringify(f.statement.bindings);
    process.stdout.write(
      [
        `--- ${f.entry.name}`,
        f.statement.sql.trim(),
        `bindings: ${bindings.length > 400 ? `${bindings.slice(0, 400)}… (${f.statement.bindings.length} values)` : bindings}`,
        f.plan,
        '',
      ].join('\n'),
    );
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Measurements

function request(entry: Entry, key: string): autocannon.Request {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (entry.body) headers['content-type'] = 'application/json';
  return {
    method: entry.method,
    path: entry.path,
    headers,
    body: entry.body ? JSON.stringify(entry.body) : undefined,
  };
}

function statusText(statuses: Record<number, number>): string {
  return Object.entries(statuses)
    .filter(([s]) => s !== '200')
    .map(([s, n]) => `${n}x${s}`)
    .join(' ');
}

function fmt(ms: number): string {
  return Number.isFinite(ms) ? ms.toFixed(1) : '-';
}

async function main() {
  const persons = intArg('persons', 1_000_000);
  const companies = intArg('companies', 100_000);
  const rounds = intArg('rounds', 3);
  const seconds = intArg('seconds', 8);
  const connections = intArg('connections', 16);
  const mixSeconds = intArg('mix-seconds', 20);
  const only = stringArg('only')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const explainOnly = flagArg('explain-only');
  const skipExplain = flagArg('skip-explain');

  const db = await benchDatabaseUrl();
  let failed = false;
  try {
    const knex = createKnex(db.url);
    let params: Parameters;
    let key: string;
    try {
      await migrateLatest(knex);
      await ensureLake(knex, persons, companies);
      const started = Date.now();
      params = await pickParameters(knex);
      process.stderr.write(`parameters picked in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      const workspace = await createWorkspace(knex, { name: `bench-read-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
      key = workspace.api_key;
    } finally {
      await knex.destroy();
    }
    let entries = readMix(params);
    if (only?.length) entries = entries.filter((e) => only.some((o) => e.name.includes(o)));
    printParameters(params, entries);

    const checked = await explainCheck(db.url, key, entries, flagArg('analyze'));
    const explainPassed = reportExplain(checked);
    if (!explainPassed && !skipExplain) {
      process.exitCode = 1;
      return;
    }
    if (explainOnly) {
      if (checked.some((c) => c.status !== 200)) process.exitCode = 1;
      return;
    }

    const answering = entries.filter((e) => checked.find((c) => c.entry === e)?.status === 200);
    const notMeasured = entries.filter((e) => !answering.includes(e));
    if (!answering.length) {
      process.stdout.write('Nothing to measure: no entry of the mix answered 200.\n');
      process.exitCode = 1;
      return;
    }
    const loadBefore = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    const settings = await postgresSettingsLine(db.url);
    const server = await startServerProcess('fullStack.ts', { DATABASE_URL: db.url });
    const perEntry = new Map<Entry, Round[]>(answering.map((e) => [e, []]));
    const combinedByEntry = new Map<Entry, number[]>(answering.map((e) => [e, []]));
    let combined: Round;
    try {
      process.stderr.write(`warming up: the whole mix for 5 s\n`);
      await measure(server.url, { seconds: 5, connections, requests: answering.map((e) => request(e, key)) });
      for (let i = 0; i < rounds; i++) {
        for (const entry of answering) {
          perEntry.get(entry)!.push(await measure(server.url, { seconds, connections, requests: [request(entry, key)] }));
        }
        process.stderr.write(`round ${i + 1}/${rounds} done\n`);
      }
      combined = await measure(server.url, {
        seconds: mixSeconds,
        connections,
        requests: answering.map((e) => request(e, key)),
        onResponse: (client, _status, ms) => {
          const index = client.requestIterator?.currentRequestIndex;
          if (index !== undefined) combinedByEntry.get(answering[index])?.push(ms);
        },
      });
    } finally {
      await server.stop();
    }

    // The table: per entry, medians over the rounds.
    const med = (r: Round[], f: (x: Round) => number) => median(r.map(f));
    const lines: string[] = [
      '',
      `Read mix over ${persons} persons / ${companies} companies: ${connections} connections, ${rounds} round(s) of ${seconds} s per entry (medians; latency in ms)`,
      `Load average before / after the measurements: ${loadBefore} / ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}`,
      settings,
      // The aims are for the 1M lake: on another size, met/MISSED judges nothing the issues ask.
      ...(persons !== 1_000_000 ? [`!!! The aims are for the 1,000,000-person lake; this one has ${persons}: met/MISSED below are not verdicts.`] : []),
      '',
      `${'entry'.padEnd(32)}${'req/s'.padStart(8)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}  ${'non-200'.padEnd(8)} aim`,
    ];
    const groups = [...new Set(answering.map((e) => e.group))];
    const groupWorst = new Map<Group, number>();
    for (const group of groups) {
      const aim = AIMS[group];
      lines.push(`[${group}]${aim === undefined ? ' (no aim)' : ` aim p95 <= ${aim} ms`}`);
      for (const entry of answering.filter((e) => e.group === group)) {
        const r = perEntry.get(entry)!;
        const p95 = med(r, (x) => x.p95);
        groupWorst.set(group, Math.max(groupWorst.get(group) ?? 0, p95));
        const bad = r.reduce((s, x) => s + x.non2xx + x.errors, 0);
        const bads = r.map((x) => statusText(x.statuses)).filter(Boolean).join(' ');
        if (bad || bads) failed = true;
        lines.push(
          `  ${entry.name.padEnd(30)}${med(r, (x) => x.requestsPerSecond).toFixed(0).padStart(8)}${fmt(med(r, (x) => x.p50)).padStart(8)}${fmt(p95).padStart(8)}${fmt(med(r, (x) => x.p99)).padStart(8)}  ${(bad || bads ? `!!! ${bads || ''} errors ${r.reduce((s, x) => s + x.errors, 0)}` : '0').padEnd(8)} ${aimText(group, p95)}`,
        );
      }
    }
    lines.push('', 'Aims (worst entry p95 of each group, medians):');
    for (const group of groups) {
      const worst = groupWorst.get(group)!;
      lines.push(`  ${group.padEnd(16)} ${fmt(worst).padStart(7)} ms   ${aimText(group, worst)}`);
    }
    lines.push(
      '',
      `Combined: the ${answering.length} entries in turn on every connection, ${mixSeconds} s, ${connections} connections`,
      `  ${'all'.padEnd(30)}${combined.requestsPerSecond.toFixed(0).padStart(8)}${fmt(combined.p50).padStart(8)}${fmt(combined.p95).padStart(8)}${fmt(combined.p99).padStart(8)}  ${combined.non2xx + combined.errors ? `!!! ${statusText(combined.statuses)} errors ${combined.errors}` : '0'}`,
    );
    if (combined.non2xx + combined.errors) failed = true;
    for (const group of groups) {
      const ms = answering
        .filter((e) => e.group === group)
        .flatMap((e) => combinedByEntry.get(e) ?? [])
        .sort((a, b) => a - b);
      if (ms.length) {
        lines.push(
          `  ${group.padEnd(30)}${String(ms.length).padStart(8)}${fmt(percentile(ms, 50)).padStart(8)}${fmt(percentile(ms, 95)).padStart(8)}${fmt(percentile(ms, 99)).padStart(8)}  (responses, not req/s)  ${aimText(group, percentile(ms, 95))}`,
        );
      }
    }
    if (failed) lines.push('', '!!! Some responses were not 200 (see non-200 above): the figures include them.');
    if (notMeasured.length) {
      failed = true;
      lines.push('', `!!! NOT MEASURED (did not answer 200): ${notMeasured.length} entries`);
      for (const e of notMeasured) lines.push(`  ${e.name}: ${checked.find((c) => c.entry === e)?.summary}`);
    }
    lines.push('');
    process.stdout.write(lines.join('\n'));
    if (failed) process.exitCode = 1;
  } finally {
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
