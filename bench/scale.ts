/**
 * npm run bench:scale — how cost grows with the lake (issue 14): the lookup and the read mix on a
 * 100,000-person and a 1,000,000-person lake in one run, each entry's p50/p95 on both and the ratio,
 * plus the size on disk of each lake (tables and indexes) and the PostgreSQL settings. The lakes are
 * labelled from the sizes given (--small=, --large=), so a run at other sizes cannot print 100k/1M.
 *
 * Lakes: the databases `enrich_bench_<label>` (`enrich_bench_100k`, `enrich_bench_1m`; override with --small-db= and
 * --large-db=), built once each (bench/lib.ts ensureLake) and reused. One server process per lake
 * (the real stack), both started before measuring; entries alternate between the lakes within a
 * round, so a busy spell of the machine hits both sides. One connection: time per request, no
 * queueing. Medians over the rounds. Options: --rounds=3 --seconds=4 --small=100000 --large=1000000
 * --only=<substring>[,...] --build=seed|import (how a missing lake is built: the import from 100,000 persons
 * on, bench/lakeImport.ts) --lake-only (build or check both lakes, then stop: the 1M build in the background)
 */
import os from 'node:os';
import type autocannon from 'autocannon';
import { createKnex, migrateLatest, type Knex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, type LakeBuildMode, intArg, measure, median, postgresSettingsLine, startServerProcess, stringArg, type Round, type Server } from './lib';
import { AIMS, attachCursor, pickParameters, readMix, type Entry } from './readMix';

interface Lake {
  label: string;
  persons: number;
  url: string;
  key: string;
  usernames: string[];
  entries: Entry[];
  sizes: { relation: string; bytes: number }[];
  server?: Server;
}

async function buildLake(database: string, persons: number): Promise<void> {
  const db = await benchDatabaseUrl(database);
  const knex = createKnex(db.url);
  try {
    await migrateLatest(knex);
    const build = stringArg('build') as LakeBuildMode | undefined;
    if (build !== undefined && build !== 'seed' && build !== 'import') throw new Error(`--build=${build}: seed or import`);
    await ensureLake(knex, persons, Math.round(persons / 10), build);
  } finally {
    await knex.destroy();
  }
}

async function prepareLake(label: string, database: string, persons: number): Promise<Lake> {
  await buildLake(database, persons);
  const db = await benchDatabaseUrl(database);
  const knex = createKnex(db.url);
  try {
    const params = await pickParameters(knex);
    const workspace = await createWorkspace(knex, { name: `bench-scale-${Date.now()}`, rateLimit: 1_000_000_000, active: true });
    const { rows } = await knex.raw<{ rows: { username: string }[] }>(
      `select username from persons tablesample system (${persons >= 1_000_000 ? 1 : 10}) repeatable (7) limit 5000`,
    );
    return {
      label,
      persons,
      url: db.url,
      key: workspace.api_key,
      usernames: rows.map((r) => r.username),
      entries: readMix(params),
      sizes: await sizesOf(knex),
    };
  } finally {
    await knex.destroy();
  }
}

/** Heap (with TOAST) and index bytes of the lake's tables. */
async function sizesOf(knex: Knex): Promise<{ relation: string; bytes: number }[]> {
  const { rows } = await knex.raw<{ rows: { relation: string; bytes: string }[] }>(
    `select c.relname || ' (table)' as relation, pg_table_size(c.oid) as bytes from pg_class c
       where c.relname in ('persons', 'person_positions', 'person_educations', 'companies') and c.relkind = 'r'
     union all
     select c.relname || ' (indexes)', pg_indexes_size(c.oid) from pg_class c
       where c.relname in ('persons', 'person_positions', 'person_educations', 'companies') and c.relkind = 'r'
     order by 1`,
  );
  return rows.map((r) => ({ relation: r.relation, bytes: Number(r.bytes) }));
}

/** 100000 -> "100k", 1000000 -> "1M", 2500 -> "2.5k", 300 -> "300": the label of a lake of that many persons. */
function sizeLabel(persons: number): string {
  const unit = persons >= 1_000_000 ? { n: 1_000_000, s: 'M' } : persons >= 1_000 ? { n: 1_000, s: 'k' } : { n: 1, s: '' };
  return `${Number((persons / unit.n).toFixed(2))}${unit.s}`;
}

/** The default database of a lake size (enrich_bench_100k, enrich_bench_1m): another size never rebuilds those. */
function lakeDatabase(persons: number): string {
  return `enrich_bench_${sizeLabel(persons).toLowerCase().replace('.', '_')}`;
}

function request(entry: Entry, key: string): autocannon.Request {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (entry.body) headers['content-type'] = 'application/json';
  return { method: entry.method, path: entry.path, headers, body: entry.body ? JSON.stringify(entry.body) : undefined };
}

async function main() {
  const rounds = intArg('rounds', 3);
  const seconds = intArg('seconds', 4);
  const only = stringArg('only')?.split(',').map((s) => s.trim()).filter(Boolean);
  const wanted = (name: string) => !only?.length || only.some((o) => name.includes(o));
  const small = intArg('small', 100_000);
  const large = intArg('large', 1_000_000);
  if (process.argv.includes('--lake-only')) {
    for (const persons of [small, large]) await buildLake(stringArg(persons === small ? 'small-db' : 'large-db') ?? lakeDatabase(persons), persons);
    return;
  }
  // Labels come from the sizes asked for, never from the defaults: --small=2000 is labelled 2k.
  const lakes = [
    await prepareLake(sizeLabel(small), stringArg('small-db') ?? lakeDatabase(small), small),
    await prepareLake(sizeLabel(large), stringArg('large-db') ?? lakeDatabase(large), large),
  ];
  const settings = await postgresSettingsLine(lakes[1].url);
  const loadAtStart = os.loadavg();
  const names = ['lookup GET /person', ...lakes[0].entries.map((e) => e.name)].filter(wanted);
  const results = new Map<string, Round[][]>(names.map((n) => [n, lakes.map(() => [])]));
  // Servers are stopped whatever fails after the first starts (a lake too small for a cursor entry
  // used to leave them running).
  try {
    for (const lake of lakes) {
      lake.server = await startServerProcess('fullStack.ts', { DATABASE_URL: lake.url });
      const send = async (entry: Entry) => {
        const res = await fetch(`${lake.server!.url}${entry.path}`, {
          method: entry.method,
          headers: { authorization: `Bearer ${lake.key}`, ...(entry.body ? { 'content-type': 'application/json' } : {}) },
          body: entry.body ? JSON.stringify(entry.body) : undefined,
        });
        return { status: res.status, body: (await res.json()) as unknown };
      };
      // Only the entries --only keeps: a small lake may have no second page for the others.
      for (const entry of lake.entries) if (entry.followCursor && wanted(entry.name)) await attachCursor(entry, send);
    }
    // The lookup, then every entry of the mix, by name (the parameters differ per lake).
    for (let round = 0; round < rounds; round++) {
      for (const name of names) {
        for (const [i, lake] of lakes.entries()) {
          let requests: autocannon.Request[];
          if (name.startsWith('lookup')) {
            let next = 0;
            requests = [{ headers: { authorization: `Bearer ${lake.key}` }, setupRequest: (req) => ({ ...req, path: `/api/v1/person?username=${encodeURIComponent(lake.usernames[next++ % lake.usernames.length])}` }) }];
          } else {
            requests = [request(lake.entries.find((e) => e.name === name)!, lake.key)];
          }
          results.get(name)![i].push(await measure(lake.server!.url, { seconds, connections: 1, requests }));
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
  } finally {
    for (const lake of lakes) await lake.server?.stop();
  }

  const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
  // Issue 35's aims at 1M (readMix.ts AIMS), beside the large lake's p95: "<= 20 met" or "<= 20 MISSED".
  const aimOf = (name: string, p95: number) => {
    const group = lakes[1].entries.find((e) => e.name === name)?.group;
    const aim = group && AIMS[group];
    return aim ? `<= ${aim} ${p95 <= aim ? 'met' : 'MISSED'}` : '-';
  };
  const lines = [
    `bench:scale: 1 connection, ${rounds} round(s) of ${seconds} s per entry and lake, alternating (medians; ms)`,
    settings,
    '',
    `lakes: ${lakes.map((l) => `${l.label} = ${l.persons} persons`).join(', ')}; ratios are ${lakes[1].label} / ${lakes[0].label}`,
    `Load average at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}; at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} cores); ${new Date().toISOString()}`,
    '',
    `${'entry'.padEnd(34)}${`${lakes[0].label} p50`.padStart(10)}${'p95'.padStart(8)}${`${lakes[1].label} p50`.padStart(10)}${'p95'.padStart(8)}${'ratio p50'.padStart(11)}${'ratio p95'.padStart(11)}${`aim ${lakes[1].label} p95`.padStart(16)}  non-200`,
  ];
  for (const name of names) {
    const [a, b] = results.get(name)!;
    const p = (r: Round[], f: (x: Round) => number) => median(r.map(f));
    const bad = [...a, ...b].reduce((s, x) => s + x.non2xx + x.errors, 0);
    lines.push(
      `${name.slice(0, 33).padEnd(34)}${fmt(p(a, (x) => x.p50)).padStart(10)}${fmt(p(a, (x) => x.p95)).padStart(8)}${fmt(p(b, (x) => x.p50)).padStart(10)}${fmt(p(b, (x) => x.p95)).padStart(8)}` +
        `${(p(b, (x) => x.p50) / p(a, (x) => x.p50)).toFixed(2).padStart(11)}${(p(b, (x) => x.p95) / p(a, (x) => x.p95)).toFixed(2).padStart(11)}${aimOf(name, p(b, (x) => x.p95)).padStart(16)}  ${bad}`,
    );
  }
  lines.push('', 'Size on disk (MB):', `${'relation'.padEnd(34)}${lakes[0].label.padStart(10)}${lakes[1].label.padStart(10)}${`per 1M persons (${lakes[1].label} lake)`.padStart(28)}`);
  for (const { relation, bytes } of lakes[1].sizes) {
    const smallBytes = lakes[0].sizes.find((s) => s.relation === relation)?.bytes ?? NaN;
    lines.push(`${relation.padEnd(34)}${(smallBytes / 2 ** 20).toFixed(0).padStart(10)}${(bytes / 2 ** 20).toFixed(0).padStart(10)}${((bytes / 2 ** 20) * (1_000_000 / lakes[1].persons)).toFixed(0).padStart(28)}`);
  }
  const total = (l: Lake) => l.sizes.reduce((s, x) => s + x.bytes, 0) / 2 ** 30;
  lines.push(`${'total'.padEnd(34)}${(total(lakes[0]) * 1024).toFixed(0).padStart(10)}${(total(lakes[1]) * 1024).toFixed(0).padStart(10)}`, '');
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
