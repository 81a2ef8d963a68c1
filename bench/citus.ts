/**
 * npm run bench:citus — what the distributed layout costs per operation on this box: the same world
 * in a single PostgreSQL 15 and in a Citus cluster (a coordinator and two workers of the same
 * PostgreSQL 15, `enrich distribute`), both started here in temporary directories on loopback
 * (test/citus/cluster.ts; needs the citus extension installed for /usr/lib/postgresql/15, see
 * docs/scale-out.md). Each operation is sent sequentially through the full stack (createApp over a
 * loopback HTTP server) to one topology then the other, round after round, so both see the same
 * machine load; the figures are medians of wall time per request, and the ratio distributed ÷
 * single node. The machine's load average is printed with them: on a shared machine the absolute
 * figures move with it, the ratio much less.
 *
 * Then the write path at import size: `importFile` of new persons, and of the same persons each
 * changed, alternated between the topologies, in records/s.
 *
 * Options: --persons=2000 --companies=100 --rounds=5 --requests=20 --shards=32 --import=5000 --import-rounds=3
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { applyDistributedLayout } from '../src/db/citusLayout';
import { createKnex, migrateLatest } from '../src/db/knex';
import { importFile } from '../src/domain/lake/importer';
import { writeRecords } from '../src/domain/lake/write/writer';
import { recordValidator } from '../src/http/recordSchemas';
import type { PersonRecord } from '../src/model/records';
import { createWorld } from '../src/world';
import { seedLake } from '../src/world/seed';
import { citusUnavailable, startCitusCluster, startPlainNode } from '../test/citus/cluster';
import { call, serve, type Op, type Target } from './citusTargets';
import { intArg, median } from './lib';

async function main() {
  const why = citusUnavailable();
  if (why) {
    console.log(`bench:citus: ${why}`);
    return;
  }
  const persons = intArg('persons', 2000);
  const companies = intArg('companies', 100);
  const rounds = intArg('rounds', 5);
  const requests = intArg('requests', 20);
  const shards = intArg('shards', 32);
  const importSize = intArg('import', 5000);
  const importRounds = intArg('import-rounds', 3);
  const world = { persons, companies, seed: 1, asOf: new Date('2026-11-01T00:00:00Z') };

  const cluster = await startCitusCluster();
  const single = await startPlainNode();
  const targets: Target[] = [];
  try {
    for (const [name, url] of [
      ['single', single.url],
      ['citus', cluster.url],
    ] as const) {
      const knex = createKnex(url, 4);
      await migrateLatest(knex);
      if (name === 'citus') await applyDistributedLayout(knex, { shardCount: shards });
      await seedLake(knex, world);
      await knex.raw('analyze');
      await knex.destroy();
      targets.push(await serve(name, url));
    }
    const sample = (
      await targets[0]!.knex.raw<{ rows: { id: string; username: string; company: string | null; record: string }[] }>(
        'select id, username, current_company_id::text as company, record::text as record from persons order by id limit 500',
      )
    ).rows;
    const company = sample.find((s) => s.company)!.company!;
    const ops: Op[] = [
      { name: 'getPerson ?username', run: (t, i) => call(t, 'GET', `/api/v1/person?username=${sample[i % 200]!.username}`) },
      { name: 'getPerson ?id', run: (t, i) => call(t, 'GET', `/api/v1/person?id=${sample[i % 200]!.id}`) },
      { name: 'bulkGetPeople 50 ids', run: (t, i) => call(t, 'POST', '/api/v1/people/bulk', { ids: sample.slice(i % 100, (i % 100) + 50).map((s) => s.id) }) },
      { name: 'searchPeople title', run: (t) => call(t, 'POST', '/api/v1/people/search', { title: 'engineer' }) },
      { name: 'listCurrentEmployees', run: (t) => call(t, 'GET', `/api/v1/company/current-employees?company_id=${company}`) },
      { name: 'listJobChanges', run: (t) => call(t, 'GET', '/api/v1/person/job-changes?within_months=24') },
      { name: 'getCompany ?company_id', run: (t) => call(t, 'GET', `/api/v1/company?company_id=${company}`) },
      ...[50, 500].map((size) => ({
        name: `write ${size} changed persons`,
        run: async (t: Target, i: number) => {
          const batch = sample.slice(0, size).map((s) => ({ ...(JSON.parse(s.record) as PersonRecord), current_title: `Title ${i} ${t.name}` }));
          await writeRecords(t.knex, 'person', batch);
        },
      })),
    ];
    const figures = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const op of ops) {
        for (const t of targets) {
          await op.run(t, 0); // warm the connection and the plan
          for (let i = 0; i < requests; i++) {
            const started = performance.now();
            await op.run(t, round * requests + i + 1);
            const k = `${op.name}\u0000${t.name}`;
            figures.set(k, [...(figures.get(k) ?? []), performance.now() - started]);
          }
        }
      }
    }
    console.log(`bench:citus  ${persons} persons, ${companies} companies; citus: coordinator + 2 workers, ${shards} shards; ${rounds} rounds x ${requests} requests`);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
    console.log(['operation'.padEnd(28), 'single p50 ms'.padStart(14), 'citus p50 ms'.padStart(13), 'ratio'.padStart(7)].join(''));
    for (const op of ops) {
      const s = median(figures.get(`${op.name}\u0000single`)!);
      const c = median(figures.get(`${op.name}\u0000citus`)!);
      console.log([op.name.padEnd(28), s.toFixed(2).padStart(14), c.toFixed(2).padStart(13), (c / s).toFixed(2).padStart(7)].join(''));
    }
    // The write path at import size: `enrich import` of new persons and then of the same file with
    // every record changed (the nightly re-import), alternated between the topologies, records/s.
    // Persons past the seeded ones, from the same generator (ids and usernames follow the index).
    const generator = createWorld({ ...world, persons: persons + importRounds * targets.length * importSize });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-citus-'));
    const rates = new Map<string, number[]>();
    try {
      for (let round = 0; round < importRounds; round++) {
        for (const t of targets) {
          const first = persons + (round * targets.length + targets.indexOf(t)) * importSize;
          const batch = Array.from({ length: importSize }, (_, i) => generator.person(first + i) as PersonRecord);
          for (const [phase, records] of [
            ['import new persons', batch],
            ['re-import, every record changed', batch.map((p) => ({ ...p, current_title: `${p.current_title ?? ''} (re-import)` }))],
          ] as const) {
            const file = path.join(tmp, `${t.name}-${round}.ndjson`);
            fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
            const started = performance.now();
            const report = await importFile(t.knex, { kind: 'person', file, validate: recordValidator('PersonResult') });
            const seconds = (performance.now() - started) / 1000;
            if (report.written !== importSize) throw new Error(`${t.name} ${phase}: wrote ${report.written} of ${importSize}`);
            const k = `${phase}\u0000${t.name}`;
            rates.set(k, [...(rates.get(k) ?? []), importSize / seconds]);
          }
        }
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    console.log(`\nimport of ${importSize} persons per run (importFile, batches of 1,000), ${importRounds} runs per topology; records/s`);
    console.log(['phase'.padEnd(34), 'single /s'.padStart(10), 'citus /s'.padStart(10), 'ratio'.padStart(7)].join(''));
    for (const phase of ['import new persons', 're-import, every record changed']) {
      const s = median(rates.get(`${phase}\u0000single`)!);
      const c = median(rates.get(`${phase}\u0000citus`)!);
      console.log([phase.padEnd(34), s.toFixed(0).padStart(10), c.toFixed(0).padStart(10), (c / s).toFixed(2).padStart(7)].join(''));
    }
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
