/**
 * `npm run bench:import [-- --persons=10000 --rounds=3]`: `enrich import persons` of one NDJSON file
 * of the bench world, in records/s, each import mode beside the **ceiling** measured in the same
 * round: a plain PostgreSQL `COPY` of the same lake rows (the typed rows an initial load writes,
 * saved once from a first load) into the final tables `persons`, `person_positions`,
 * `person_educations` and `person_refresh`, with the same set-up as the initial load (primary keys
 * and unique indexes in place, the secondary indexes and foreign keys dropped first and built after
 * the data, then ANALYZE): what the server itself takes for the same final state. The modes:
 * - the initial load into an empty lake (`--initial-load`: typed rows by COPY, committed in chunks
 *   with a checkpoint, indexes and keys built at the end);
 * - a full re-import with every `fetched_at` moved (the file a day later, then the first file again:
 *   content the same, so only fetched_at moves), on the default lanes;
 * - a full re-import of unchanged records (the same text: only their refresh queue row), default lanes.
 * The ceiling and the initial load alternate which goes first. Medians of the rounds and each
 * round's figures; the machine is shared, so the ratios to the ceiling are the figures to compare
 * across runs. Also printed: the earlier anchor, COPY of the NDJSON into one jsonb column.
 *
 * Runs as `enrich import` does, in a worker thread with the CLI's heap limits (bin/heap.js);
 * BENCH_IMPORT_DEFAULT_HEAP=1 runs it with node's defaults instead.
 *
 * Uses its own database `enrich_bench_imp_<pid>` on DATABASE_URL's server (default: the local
 * PostgreSQL at 127.0.0.1:5432), dropped at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isMainThread, Worker, type ResourceLimits } from 'node:worker_threads';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { createKnex, dropDatabase, ensureDatabase, migrateLatest } from '../src/db/knex';
import { importFile, type ImportReport } from '../src/domain/lake/importer';
import { defaultImportLanes } from '../src/domain/lake/lanes';
import { recordValidator } from '../src/http/recordSchemas';
import { writeWorldFiles } from '../src/world/seed';
import { AS_OF, intArg, median, postgresSettingsLine, SEED } from './lib';
import { statementTimingsFromEnv } from './statementTimings';
import { NDJSON_COPY_OPTIONS } from '../src/db/repositories/staging';
import { PERSON_COPY_TABLES } from '../src/db/repositories/personRecords';
import { rebuildSetAside, setAsideForLoad } from '../src/db/repositories/lakeIndexes';

const persons = intArg('persons', 10_000);
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

/** Saves the lake's rows as the initial load wrote them, one COPY text file per table. */
async function saveLakeRows(url: string, dir: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  const files: Record<string, string> = {};
  try {
    for (const [name, target] of Object.entries(PERSON_COPY_TABLES)) {
      const [table, columns] = [target.slice(0, target.indexOf(' ')), target.slice(target.indexOf(' '))];
      files[name] = path.join(dir, `${name}.copy`);
      await pipeline(client.query(copyTo(`copy ${table} ${columns} to stdout`)), fs.createWriteStream(files[name]));
    }
  } finally {
    await client.end();
  }
  return files;
}

/**
 * The ceiling: into the emptied tables, secondary indexes and foreign keys set aside as the
 * initial load does, COPY of the saved rows, the indexes and keys built again, ANALYZE.
 */
async function ceilingCopy(knex: ReturnType<typeof createKnex>, url: string, files: Record<string, string>): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const started = process.hrtime.bigint();
    const setAside = await knex.transaction((trx) => setAsideForLoad(trx, 'person'));
    if (!setAside) throw new Error('ceiling: the lake is not empty');
    for (const [name, target] of Object.entries(PERSON_COPY_TABLES)) {
      await pipeline(fs.createReadStream(files[name]!, { highWaterMark: 1 << 20 }), client.query(copyFrom(`copy ${target} from stdin`)));
    }
    await rebuildSetAside(knex, 'person', setAside);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { rows } = await client.query<{ n: string }>('select count(*) as n from persons');
    if (Number(rows[0].n) !== persons) throw new Error(`ceiling copied ${rows[0].n} persons, expected ${persons}`);
    return persons / seconds;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  // BENCH_STATEMENT_TIMINGS=1: where the database time of all modes went, printed at the end.
  const timings = statementTimingsFromEnv();
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
  const results = { anchor: [] as number[], ceiling: [] as number[], initial: [] as number[], later: [] as number[], unchanged: [] as number[] };
  const run = async (label: string, initialLoad: boolean, opts: { lanes?: number; file?: string } = {}): Promise<number> => {
    const report: ImportReport = await importFile(knex, { kind: 'person', file: opts.file ?? file, validate, initialLoad, lanes: opts.lanes });
    if (report.written !== persons || report.invalid) throw new Error(`${label}: ${JSON.stringify({ ...report, errors: report.errors.slice(0, 3) })}`);
    const rate = persons / (report.elapsed_ms / 1000);
    process.stderr.write(`  ${label}: ${Math.round(rate)} records/s (${report.elapsed_ms} ms)\n`);
    return rate;
  };
  const empty = async () => {
    await knex.raw('truncate persons, person_positions, person_educations, person_refresh, change_log cascade');
    await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
  };
  try {
    await migrateLatest(knex);
    const settings = await postgresSettingsLine(url);
    const bytes = (await fs.promises.stat(file)).size;
    const loadBefore = os.loadavg();
    // The rows the ceiling copies: those a first (untimed) initial load writes.
    await empty();
    await run('first initial load (saves the ceiling\'s rows, not counted)', true);
    const rowFiles = await saveLakeRows(url, dir);
    for (let round = 1; round <= rounds; round += 1) {
      process.stderr.write(`round ${round}/${rounds}\n`);
      const ceiling = async () => {
        await empty();
        const rate = await ceilingCopy(knex, url, rowFiles);
        process.stderr.write(`  ceiling COPY into the final tables: ${Math.round(rate)} records/s\n`);
        results.ceiling.push(rate);
      };
      const initial = async () => {
        await empty();
        results.initial.push(await run('empty lake (--initial-load)', true));
      };
      if (round % 2) (await ceiling(), await initial());
      else (await initial(), await ceiling());
      results.anchor.push(await anchorCopy(url, file));
      await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
      results.unchanged.push(await run(`full lake, unchanged, ${lanes} lanes`, false, { lanes }));
      await run(`full lake, new fetched_at, ${lanes} lanes (first half of the pair)`, false, { file: laterFile, lanes });
      // Back to the first file's fetched_at: every record moved again.
      results.later.push(await run(`full lake, fetched_at moved, ${lanes} lanes`, false, { lanes }));
    }
    const ceiling = median(results.ceiling);
    const line = (label: string, values: number[], aim?: number) =>
      `| ${label} | ${Math.round(median(values)).toLocaleString('en')} | ${(median(values) / ceiling).toFixed(2)} | ${aim ? `≥ ${aim.toFixed(1)}` : '–'} | ${values.map((v) => Math.round(v)).join(', ')} |`;
    process.stdout.write(
      [
        `bench:import — ${persons.toLocaleString('en')} persons (${(bytes / 1e6).toFixed(0)} MB of NDJSON), ${rounds} rounds, medians, ${new Date().toISOString().slice(0, 10)}`,
        `machine: ${os.cpus().length} cores, load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
        settings,
        '',
        '| measure | records/s | ratio to the ceiling | aim | rounds |',
        '|---|---|---|---|---|',
        line('ceiling: COPY of the lake rows into the final tables, indexes and keys built after, ANALYZE', results.ceiling),
        line('enrich import --initial-load, empty lake', results.initial, 0.8),
        line(`enrich import, full lake, every fetched_at moved, ${lanes} lanes`, results.later, 0.5),
        line(`enrich import, full lake, every record unchanged, ${lanes} lanes`, results.unchanged),
        line('(anchor of earlier runs: COPY of the NDJSON into one jsonb column)', results.anchor),
        '',
      ].join('\n'),
    );
    timings?.print(30);
  } finally {
    await knex.destroy();
    await dropDatabase(adminUrl, database);
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

// Measured as `enrich import` runs: in a worker thread with the CLI's heap limits (bin/heap.js).
// BENCH_IMPORT_DEFAULT_HEAP=1 runs it on this thread, with node's defaults, for a side-by-side.
if (isMainThread && process.env.BENCH_IMPORT_DEFAULT_HEAP !== '1') {
  const { IMPORT_RESOURCE_LIMITS } = require('../bin/heap') as { IMPORT_RESOURCE_LIMITS: ResourceLimits };
  const worker = new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`, {
    eval: true,
    argv: process.argv.slice(2),
    resourceLimits: IMPORT_RESOURCE_LIMITS,
  });
  worker.on('exit', (code) => {
    process.exitCode = code;
  });
} else {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  });
}
