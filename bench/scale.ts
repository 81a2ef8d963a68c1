/**
 * npm run bench:scale — how cost grows with the lake (issue 14): the lookup and the read mix on a
 * 100,000-person and a 1,000,000-person lake in one run, each entry's p50/p95 on both and the ratio,
 * plus the size on disk of each lake (tables and indexes) and the PostgreSQL settings.
 *
 * Lakes: the databases `enrich_bench_100k` and `enrich_bench_1m` (override with --small-db= and
 * --large-db=), built once each (bench/lib.ts ensureLake) and reused. One server process per lake
 * (the real stack), both started before measuring; entries alternate between the lakes within a
 * round, so a busy spell of the machine hits both sides. One connection: time per request, no
 * queueing. Medians over the rounds. Options: --rounds=3 --seconds=4 --small=100000 --large=1000000
 * --only=<substring>[,...]
 */
import type autocannon from 'autocannon';
import { createKnex, migrateLatest, type Knex } from '../src/db/knex';
import { createWorkspace } from '../src/domain/workspaces/admin';
import { benchDatabaseUrl, ensureLake, intArg, measure, median, postgresSettingsLine, startServerProcess, stringArg, type Round, type Server } from './lib';
import { attachCursor, pickParameters, readMix, type Entry } from './readMix';

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

async function prepareLake(label: string, database: string, persons: number): Promise<Lake> {
  const db = await benchDatabaseUrl(database);
  const knex = createKnex(db.url);
  try {
    await migrateLatest(knex);
    await ensureLake(knex, persons, Math.round(persons / 10));
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

function request(entry: Entry, key: string): autocannon.Request {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (entry.body) headers['content-type'] = 'application/json';
  return { method: entry.method, path: entry.path, headers, body: entry.body ? JSON.stringify(entry.body) : undefined };
}

async function main() {
  const rounds = intArg('rounds', 3);
  const seconds = intArg('seconds', 4);
  const only = stringArg('only')?.split(',').map((s) => s.trim()).filter(Boolean);
  const lakes = [
    await prepareLake('100k', stringArg('small-db') ?? 'enrich_bench_100k', intArg('small', 100_000)),
    await prepareLake('1M', stringArg('large-db') ?? 'enrich_bench_1m', intArg('large', 1_000_000)),
  ];
  const settings = await postgresSettingsLine(lakes[1].url);
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
    for (const entry of lake.entries) if (entry.followCursor) await attachCursor(entry, send);
  }

  // The lookup, then every entry of the mix, by name (the parameters differ per lake).
  const names = ['lookup GET /person', ...lakes[0].entries.map((e) => e.name)].filter((n) => !only?.length || only.some((o) => n.includes(o)));
  const results = new Map<string, Round[][]>(names.map((n) => [n, lakes.map(() => [])]));
  try {
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
  const lines = [
    `bench:scale: 1 connection, ${rounds} round(s) of ${seconds} s per entry and lake, alternating (medians; ms)`,
    settings,
    '',
    `${'entry'.padEnd(34)}${'100k p50'.padStart(10)}${'p95'.padStart(8)}${'1M p50'.padStart(10)}${'p95'.padStart(8)}${'ratio p50'.padStart(11)}${'ratio p95'.padStart(11)}  non-200`,
  ];
  for (const name of names) {
    const [small, large] = results.get(name)!;
    const p = (r: Round[], f: (x: Round) => number) => median(r.map(f));
    const bad = [...small, ...large].reduce((s, x) => s + x.non2xx + x.errors, 0);
    lines.push(
      `${name.slice(0, 33).padEnd(34)}${fmt(p(small, (x) => x.p50)).padStart(10)}${fmt(p(small, (x) => x.p95)).padStart(8)}${fmt(p(large, (x) => x.p50)).padStart(10)}${fmt(p(large, (x) => x.p95)).padStart(8)}` +
        `${(p(large, (x) => x.p50) / p(small, (x) => x.p50)).toFixed(2).padStart(11)}${(p(large, (x) => x.p95) / p(small, (x) => x.p95)).toFixed(2).padStart(11)}  ${bad}`,
    );
  }
  lines.push('', 'Size on disk (MB):', `${'relation'.padEnd(34)}${'100k'.padStart(10)}${'1M'.padStart(10)}${'per 1M persons (1M lake)'.padStart(28)}`);
  for (const { relation, bytes } of lakes[1].sizes) {
    const small = lakes[0].sizes.find((s) => s.relation === relation)?.bytes ?? NaN;
    lines.push(`${relation.padEnd(34)}${(small / 2 ** 20).toFixed(0).padStart(10)}${(bytes / 2 ** 20).toFixed(0).padStart(10)}${((bytes / 2 ** 20) * (1_000_000 / lakes[1].persons)).toFixed(0).padStart(28)}`);
  }
  const total = (l: Lake) => l.sizes.reduce((s, x) => s + x.bytes, 0) / 2 ** 30;
  lines.push(`${'total'.padEnd(34)}${(total(lakes[0]) * 1024).toFixed(0).padStart(10)}${(total(lakes[1]) * 1024).toFixed(0).padStart(10)}`, '');
  process.stdout.write(lines.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
