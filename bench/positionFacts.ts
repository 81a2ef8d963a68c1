/**
 * `npm run bench:position-facts [-- --persons=10000 --rounds=3]`: the one-pass position facts of
 * the lake writer (lake_position_facts, migration 20261203000100_import_position_facts) against
 * the rule functions they restate (lake_previous_position, lake_changed_employer,
 * lake_latest_past_ordinals, and the current start date as the writer took it), side by side:
 * - identical results for every record of the bench world, both as imported (positions newest
 *   first) and as the generator writes them (any order); the run fails on the first difference;
 * - the time per record of each (medians of the rounds, alternating).
 *
 * Uses its own database `enrich_bench_pf_<pid>` on DATABASE_URL's server, dropped at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../src/db/knex';
import { importFile } from '../src/domain/lake/importer';
import { NDJSON_COPY_OPTIONS } from '../src/db/repositories/staging';
import { recordValidator } from '../src/http/recordSchemas';
import { writeWorldFiles } from '../src/world/seed';
import { AS_OF, intArg, median, SEED } from './lib';
import { NEW_FACTS as NEW, OLD_FACTS as OLD } from './positionFactsSql';

const persons = intArg('persons', 10_000);
const rounds = intArg('rounds', 3);
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `enrich_bench_pf_${process.pid}`;


async function main(): Promise<void> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'enrich-bench-facts-'));
  const world = await writeWorldFiles(dir, { persons, companies: Math.max(100, Math.round(persons / 10)), seed: SEED, asOf: AS_OF });
  const file = world.files.find((f) => f.endsWith('persons.ndjson'))!;
  await ensureDatabase(adminUrl, database);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const knex = createKnex(url.toString(), 2);
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => undefined);
  try {
    await migrateLatest(knex);
    await importFile(knex, { kind: 'person', file, validate: recordValidator('PersonResult'), initialLoad: true });
    await client.connect();
    await client.query('create table facts_raw (r jsonb)');
    await pipeline(fs.createReadStream(file), client.query(copyFrom(`copy facts_raw (r) from stdin ${NDJSON_COPY_OPTIONS}`)));
    await client.query('create table facts_stored as select record::jsonb as r from persons');
    const lines: string[] = [];
    for (const table of ['facts_stored', 'facts_raw']) {
      const { rows } = await client.query<{ total: string | number; differ: string | number; sample: string | null }>(
        `select count(*) as total, count(*) filter (where o is distinct from n) as differ,
           min(case when o is distinct from n then r->>'id' end) as sample
         from (select r, ${OLD} as o, ${NEW} as n from ${table}, lateral lake_position_facts(r) f) x`,
      );
      if (Number(rows[0].differ) !== 0) throw new Error(`${table}: ${rows[0].differ} of ${rows[0].total} records differ (e.g. ${rows[0].sample})`);
      const time = async (sql: string) => {
        const started = process.hrtime.bigint();
        await client.query(sql);
        return Number(process.hrtime.bigint() - started) / 1e3 / Number(rows[0].total);
      };
      const old: number[] = [];
      const now: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        old.push(await time(`select sum(length(${OLD})) from ${table}`));
        now.push(await time(`select sum(length(${NEW})) from ${table}, lateral lake_position_facts(r) f`));
      }
      lines.push(
        `| ${table === 'facts_stored' ? 'as stored (newest first)' : 'as generated'} | ${rows[0].total} | identical | ${median(old).toFixed(0)} µs | ${median(now).toFixed(0)} µs |`,
      );
    }
    process.stdout.write(
      [
        `bench:position-facts — ${persons.toLocaleString('en')} persons, ${rounds} rounds, medians; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
        '',
        '| records | count | old vs new | rule functions, per record | lake_position_facts, per record |',
        '|---|---|---|---|---|',
        ...lines,
        '',
      ].join('\n'),
    );
  } finally {
    await client.end().catch(() => undefined);
    await knex.destroy();
    await dropDatabase(adminUrl, database);
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
