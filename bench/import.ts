/**
 * `npm run bench:import [-- --persons=100000 --rounds=3]`: `enrich import persons` of one NDJSON file
 * of the bench world, measured in records/s
 * - into an empty lake (the initial load: secondary indexes built after the data),
 * - into a full lake (the same records again: every one diffed against its stored copy and found
 *   unchanged, the same text: re-verified, its refresh queue row only), on the default lanes and
 *   on one lane (`--lanes`, lanes.ts),
 * - into a full lake with every record re-verified at a new `fetched_at` (as a nightly re-import
 *   would be: same content, so only fetched_at moves, in the row, its stored text and its indexes),
 *   on one lane (the file a day later), then on the default lanes (the first file again),
 * side by side, in the same run, with the anchor: a plain PostgreSQL `COPY` of the same NDJSON into
 * one jsonb column (what the server itself can take, before any lake work). Medians of the rounds;
 * the machine is shared, so the ratios to the anchor are the figures to compare across runs.
 *
 * Uses its own database `enrich_bench_imp_<pid>` on DATABASE_URL's server (default: the local
 * PostgreSQL at 127.0.0.1:5432), dropped at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../src/db/knex';
import { importFile, type ImportReport } from '../src/domain/lake/importer';
import { defaultImportLanes } from '../src/domain/lake/lanes';
import { recordValidator } from '../src/http/recordSchemas';
import { writeWorldFiles } from '../src/world/seed';
import { AS_OF, intArg, median, postgresSettingsLine, SEED } from './lib';
import { NDJSON_COPY_OPTIONS } from '../src/db/repositories/staging';

const persons = intArg('persons', 100_000);
const rounds = intArg('rounds', 3);
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `enrich_bench_imp_${process.pid}`;

function dbUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The anchor: COPY of the file's lines, as they are, into one jsonb column. */
async function anchorCopy(url: string, file: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('create table if not exists import_anchor (doc jsonb)');
    await client.query('truncate import_anchor');
    const started = process.hrtime.bigint();
    await pipeline(fs.createReadStream(file, { highWaterMark: 1 << 20 }), client.query(copyFrom(`copy import_anchor (doc) from stdin ${NDJSON_COPY_OPTIONS}`)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { rows } = await client.query<{ n: string }>('select count(*) as n from import_anchor');
    if (Number(rows[0].n) !== persons) throw new Error(`anchor copied ${rows[0].n} rows, expected ${persons}`);
    await client.query('truncate import_anchor');
    return persons / seconds;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'enrich-bench-import-'));
  process.stderr.write(`writing ${persons} persons of the bench world (seed ${SEED}) to ${dir}\n`);
  const world = await writeWorldFiles(dir, { persons, companies: Math.max(100, Math.round(persons / 10)), seed: SEED, asOf: AS_OF });
  const file = world.files.find((f) => f.endsWith('persons.ndjson'))!;
  await ensureDatabase(adminUrl, database);
  const url = dbUrl(database);
  const knex = createKnex(url, 8);
  const validate = recordValidator('PersonResult');
  // The same records verified a day later: only fetched_at differs, line for line.
  const laterFile = file.replace(/\.ndjson$/, '.later.ndjson');
  await fs.promises.writeFile(
    laterFile,
    (await fs.promises.readFile(file, 'utf8')).replace(/"fetched_at":"([^"]+)"/g, (_m, at: string) => `"fetched_at":"${new Date(Date.parse(at) + 86_400_000).toISOString()}"`),
  );
  const lanes = defaultImportLanes();
  const results = { anchor: [] as number[], empty: [] as number[], full: [] as number[], fullOneLane: [] as number[], later: [] as number[], laterOneLane: [] as number[] };
  const run = async (label: string, initialLoad: boolean, opts: { lanes?: number; file?: string } = {}): Promise<number> => {
    const report: ImportReport = await importFile(knex, { kind: 'person', file: opts.file ?? file, validate, initialLoad, lanes: opts.lanes });
    if (report.written !== persons || report.invalid) throw new Error(`${label}: ${JSON.stringify({ ...report, errors: report.errors.slice(0, 3) })}`);
    const rate = persons / (report.elapsed_ms / 1000);
    process.stderr.write(`  ${label}: ${Math.round(rate)} records/s (${report.elapsed_ms} ms)\n`);
    return rate;
  };
  try {
    await migrateLatest(knex);
    const settings = await postgresSettingsLine(url);
    const bytes = (await fs.promises.stat(file)).size;
    for (let round = 1; round <= rounds; round += 1) {
      process.stderr.write(`round ${round}/${rounds}\n`);
      await knex.raw('truncate persons, person_positions, person_educations, person_refresh, change_log cascade');
      await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
      const anchor = await anchorCopy(url, file);
      process.stderr.write(`  anchor COPY: ${Math.round(anchor)} records/s\n`);
      results.anchor.push(anchor);
      results.empty.push(await run('empty lake (--initial-load)', true));
      await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
      results.fullOneLane.push(await run('full lake, one lane', false, { lanes: 1 }));
      results.full.push(await run(`full lake, ${lanes} lanes`, false));
      results.laterOneLane.push(await run('full lake, new fetched_at, one lane', false, { file: laterFile, lanes: 1 }));
      // Back to the first file's fetched_at, so the next run moves every record again.
      results.later.push(await run(`full lake, first fetched_at again, ${lanes} lanes`, false, { lanes }));
    }
    const anchor = median(results.anchor);
    const line = (label: string, values: number[], aim?: number) =>
      `| ${label} | ${Math.round(median(values)).toLocaleString('en')} | ${(median(values) / anchor).toFixed(3)} | ${aim ? aim.toLocaleString('en') : '–'} | ${values.map((v) => Math.round(v)).join(', ')} |`;
    process.stdout.write(
      [
        `bench:import — ${persons.toLocaleString('en')} persons (${(bytes / 1e6).toFixed(0)} MB of NDJSON), ${rounds} rounds, medians`,
        `machine: ${os.cpus().length} cores, load average before ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
        settings,
        '',
        '| measure | records/s | ratio to anchor | aim | rounds |',
        '|---|---|---|---|---|',
        line('anchor: COPY of the NDJSON into one jsonb column', results.anchor),
        line('enrich import into an empty lake (initial load)', results.empty, 20_000),
        line(`enrich import into a full lake (every record unchanged), ${lanes} lanes`, results.full, 5_000),
        line('enrich import into a full lake (every record unchanged), one lane', results.fullOneLane, 5_000),
        line('enrich import into a full lake (every record at a new fetched_at), one lane', results.laterOneLane, 5_000),
        line(`enrich import into a full lake (every record at a new fetched_at), ${lanes} lanes`, results.later, 5_000),
        '',
      ].join('\n'),
    );
  } finally {
    await knex.destroy();
    await dropDatabase(adminUrl, database);
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
