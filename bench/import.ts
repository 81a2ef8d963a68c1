/**
 * `npm run bench:import [-- --persons=10000 --rounds=3 --repeats=1 --invalid=0.1 --reimports=1]`: `enrich import persons` of one NDJSON file
 * of the bench world, in records/s, each import mode beside the **ceiling** measured in the same
 * round: a plain PostgreSQL `COPY` of the same lake rows (the typed rows an initial load writes,
 * saved once from a first load) into the final tables `persons`, `person_positions`,
 * `person_educations` and `person_refresh`, with the same set-up as the initial load (primary keys
 * and unique indexes in place, the secondary indexes and foreign keys dropped first and built after
 * the data, then ANALYZE): what the server itself takes for the same final state. The modes:
 * - the initial load into an empty lake (`--initial-load`: typed rows by COPY, committed in chunks
 *   with a checkpoint, indexes and keys built at the end), of the clean file and of a **realistic**
 *   one (world/realisticFile.ts: the same persons with `--repeats=1` % of them listed again further
 *   down, identical, re-verified or changed, and `--invalid=0.1` % invalid lines), plain and gzip;
 *   the realistic file against its own ceiling (the COPY of its final rows, saved from a first load
 *   of it), as a ratio of times (the same final state);
 * - a full re-import with every `fetched_at` moved (the file a day later, then the first file again:
 *   content the same, so only fetched_at moves), on the default lanes;
 * - a full re-import of unchanged records (the same text: only their refresh queue row), default lanes.
 * Each ceiling and the initial loads of its file alternate which goes first. Medians of the rounds
 * and each round's ratio; the machine is shared, so the ratios to the ceiling of the same round
 * are the figures to compare across runs, printed with the load average of each round. Also
 * printed: the earlier anchor, COPY of the NDJSON into one jsonb column. `--reimports=0` leaves
 * out the full-lake re-imports (they take as long again). `--chunks-per-commit=N` sets the initial
 * load's chunks per commit (default: the importer's); `--compare=1` (default) also loads the
 * realistic file with one chunk per commit, side by side. Each row also prints CPU seconds per
 * 1,000 lines: this process (Node) and the PostgreSQL backends of the bench's database (/proc).
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
import { DEFAULT_CHUNKS_PER_COMMIT, importFile, type ImportReport } from '../src/domain/lake/importer';
import { defaultImportLanes } from '../src/domain/lake/lanes';
import { recordValidator } from '../src/http/recordSchemas';
import { writeWorldFiles } from '../src/world/seed';
import { writeRealisticPersonsFile } from '../src/world/realisticFile';
import { AS_OF, intArg, median, postgresSettingsLine, SEED, stringArg } from './lib';
import { statementTimingsFromEnv } from './statementTimings';
import { NDJSON_COPY_OPTIONS } from '../src/db/repositories/staging';
import { PERSON_COPY_TABLES } from '../src/db/repositories/personRecords';
import { rebuildSetAside, setAsideForLoad } from '../src/db/repositories/lakeIndexes';

const persons = intArg('persons', 10_000);
const rounds = intArg('rounds', 3);
/** Per cent of persons listed twice, and of lines invalid, in the realistic file. */
const repeatShare = Number(stringArg('repeats') ?? 1);
const invalidShare = Number(stringArg('invalid') ?? 0.1);
/** 0: only the initial loads (the full-lake re-imports take as long again). */
const reimports = intArg('reimports', 1);
/** The initial load's chunks per commit (importer.ts), and whether to load the realistic file with one chunk per commit too (before issue 35's commits of several chunks), side by side. */
const chunksPerCommit = intArg('chunks-per-commit', DEFAULT_CHUNKS_PER_COMMIT);
const compareOnePerCommit = intArg('compare', 1);
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
  await fs.promises.mkdir(dir, { recursive: true });
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
async function ceilingCopy(knex: ReturnType<typeof createKnex>, url: string, files: Record<string, string>): Promise<{ seconds: number; cpu: Cpu }> {
  // Returns the seconds it took, and the CPU.
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const before = await cpuNow(knex);
    const started = process.hrtime.bigint();
    const setAside = await knex.transaction((trx) => setAsideForLoad(trx, 'person'));
    if (!setAside) throw new Error('ceiling: the lake is not empty');
    for (const [name, target] of Object.entries(PERSON_COPY_TABLES)) {
      await pipeline(fs.createReadStream(files[name]!, { highWaterMark: 1 << 20 }), client.query(copyFrom(`copy ${target} from stdin`)));
    }
    await rebuildSetAside(knex, 'person', setAside);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuSince(before, await cpuNow(knex));
    const { rows } = await client.query<{ n: string }>('select count(*) as n from persons');
    if (Number(rows[0].n) !== persons) throw new Error(`ceiling copied ${rows[0].n} persons, expected ${persons}`);
    return { seconds, cpu };
  } finally {
    await client.end();
  }
}

/** CPU seconds: of this process (Node, all threads), and of the PostgreSQL backends of the bench's database. */
interface Cpu {
  node: number;
  postgres: number;
}
interface CpuSample {
  node: number;
  backends: Map<number, number>;
}

/**
 * The CPU used so far by this process, and by each backend serving the bench's database (read from
 * /proc/<pid>/stat: the server runs on this machine; elsewhere 0). A backend that ends between two
 * samples is not counted, so the pool's and the ceiling's connections are sampled while open.
 */
async function cpuNow(knex: ReturnType<typeof createKnex>): Promise<CpuSample> {
  const usage = process.cpuUsage();
  const { rows } = await knex.raw<{ rows: { pid: number }[] }>('select pid from pg_stat_activity where datname = current_database()');
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      backends.set(pid, (Number(fields[11]) + Number(fields[12])) / 100); // utime, stime in ticks of 1/100 s
    } catch {
      // Not on this machine, or just ended.
    }
  }
  return { node: (usage.user + usage.system) / 1e6, backends };
}

function cpuSince(before: CpuSample, after: CpuSample): Cpu {
  let postgres = 0;
  for (const [pid, seconds] of after.backends) postgres += seconds - (before.backends.get(pid) ?? 0);
  return { node: after.node - before.node, postgres };
}

async function main(): Promise<void> {
  // BENCH_STATEMENT_TIMINGS=1: where the database time of all modes went, printed at the end.
  const timings = statementTimingsFromEnv();
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'enrich-bench-import-'));
  process.stderr.write(`writing ${persons} persons of the bench world (seed ${SEED}) to ${dir}\n`);
  const worldOptions = { persons, companies: Math.max(100, Math.round(persons / 10)), seed: SEED, asOf: AS_OF };
  const world = await writeWorldFiles(dir, worldOptions);
  const file = world.files.find((f) => f.endsWith('persons.ndjson'))!;
  // The file people really have: the same persons, 1 % of them listed again further down (identical,
  // re-verified or changed), 0.1 % invalid lines; plain and gzip (world/realisticFile.ts).
  const realistic = { file: path.join(dir, 'persons.realistic.ndjson'), gzip: path.join(dir, 'persons.realistic.ndjson.gz') };
  const noise = { ...worldOptions, repeatShare: repeatShare / 100, invalidShare: invalidShare / 100 };
  const shape = await writeRealisticPersonsFile(realistic.file, noise);
  await writeRealisticPersonsFile(realistic.gzip, { ...noise, gzip: true });
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
  /** Seconds of each case per round; the ceilings are per file (the realistic file's final rows differ). */
  const seconds: Record<string, number[]> = {};
  const push = (key: string, value: number) => (seconds[key] ??= []).push(value);
  /** CPU seconds of each case per round, and the lines of its file. */
  const cpus: Record<string, { cpu: Cpu; lines: number }[]> = {};
  const run = async (
    label: string,
    initialLoad: boolean,
    opts: { lanes?: number; file?: string; invalid?: number; chunksPerCommit?: number; cpuKey?: string } = {},
  ): Promise<{ seconds: number; lines: number }> => {
    const before = await cpuNow(knex);
    const report: ImportReport = await importFile(knex, {
      kind: 'person',
      file: opts.file ?? file,
      validate,
      initialLoad,
      lanes: opts.lanes,
      chunksPerCommit: opts.chunksPerCommit ?? chunksPerCommit,
    });
    if (opts.cpuKey) (cpus[opts.cpuKey] ??= []).push({ cpu: cpuSince(before, await cpuNow(knex)), lines: report.lines });
    const stored = Number((await knex.raw<{ rows: { n: string }[] }>('select count(*) as n from persons')).rows[0].n);
    if (stored !== persons || report.invalid !== (opts.invalid ?? 0) || !report.complete) {
      throw new Error(`${label}: ${stored} persons stored; ${JSON.stringify({ ...report, errors: report.errors.slice(0, 3) })}`);
    }
    const took = report.elapsed_ms / 1000;
    process.stderr.write(`  ${label}: ${Math.round(report.lines / took)} lines/s (${report.elapsed_ms} ms)\n`);
    return { seconds: took, lines: report.lines };
  };
  const empty = async () => {
    await knex.raw('truncate persons, person_positions, person_educations, person_refresh, change_log cascade');
    await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
  };
  const lines: Record<string, number> = { clean: persons };
  try {
    await migrateLatest(knex);
    const settings = await postgresSettingsLine(url);
    const bytes = (await fs.promises.stat(file)).size;
    const loadBefore = os.loadavg();
    // The rows each ceiling copies: those a first (untimed) initial load of its file writes.
    await empty();
    await run('first initial load (saves the ceiling\'s rows, not counted)', true);
    const rowFiles = { clean: await saveLakeRows(url, path.join(dir, 'clean')), realistic: {} as Record<string, string> };
    await empty();
    const first = await run('first initial load of the realistic file (saves its ceiling\'s rows, not counted)', true, { file: realistic.file, invalid: shape.invalid });
    lines.realistic = first.lines;
    const changeLog = Number((await knex.raw<{ rows: { n: string }[] }>('select count(*) as n from change_log')).rows[0].n);
    rowFiles.realistic = await saveLakeRows(url, path.join(dir, 'realistic'));
    const loads: Record<string, number[]> = {};
    for (let round = 1; round <= rounds; round += 1) {
      process.stderr.write(`round ${round}/${rounds} (load average ${os.loadavg()[0]!.toFixed(1)})\n`);
      loads[round] = [os.loadavg()[0]!];
      const ceiling = async (name: 'clean' | 'realistic') => {
        await empty();
        const { seconds: took, cpu } = await ceilingCopy(knex, url, rowFiles[name]);
        (cpus[`ceiling:${name}`] ??= []).push({ cpu, lines: persons });
        process.stderr.write(`  ceiling COPY into the final tables (${name} file's rows): ${Math.round(persons / took)} persons/s (${Math.round(took * 1000)} ms)\n`);
        push(`ceiling:${name}`, took);
      };
      const initial = async (name: string, target: string, invalid = 0, perCommit?: number) => {
        await empty();
        push(name, (await run(`empty lake (--initial-load), ${name}`, true, { file: target, invalid, chunksPerCommit: perCommit, cpuKey: name })).seconds);
      };
      // The ceiling and the loads of its file alternate which goes first.
      const pairs: [() => Promise<void>, () => Promise<void>][] = [
        [() => ceiling('clean'), () => initial('clean', file)],
        [
          () => ceiling('realistic'),
          async () => {
            await initial('realistic', realistic.file, shape.invalid);
            await initial('realistic.gz', realistic.gzip, shape.invalid);
            if (compareOnePerCommit) await initial('realistic, one chunk per commit', realistic.file, shape.invalid, 1);
          },
        ],
      ];
      for (const [a, b] of pairs) {
        if (round % 2) (await a(), await b());
        else (await b(), await a());
      }
      if (reimports) {
        await empty();
        await run('(fills the lake for the re-imports, not counted)', true);
        push('anchor', persons / (await anchorCopy(url, file)));
        await knex.raw('vacuum analyze persons, person_positions, person_educations, person_refresh');
        push('unchanged', (await run(`full lake, unchanged, ${lanes} lanes`, false, { lanes })).seconds);
        await run(`full lake, new fetched_at, ${lanes} lanes (first half of the pair)`, false, { file: laterFile, lanes });
        // Back to the first file's fetched_at: every record moved again.
        push('later', (await run(`full lake, fetched_at moved, ${lanes} lanes`, false, { lanes })).seconds);
      }
      loads[round]!.push(os.loadavg()[0]!);
    }
    /** Per round, the case's time against its ceiling's of the same round (the figure that survives a busy machine). */
    const ratios = (key: string, ceilingKey: string) => seconds[key]!.map((s, i) => seconds[ceilingKey]![i]! / s);
    const line = (label: string, key: string, n: number, ceilingKey?: string, aim?: number) => {
      const rate = n / median(seconds[key]!);
      const r = ceilingKey ? ratios(key, ceilingKey) : undefined;
      const c = cpus[key];
      const per1000 = (pick: (cpu: Cpu) => number) => (c ? median(c.map((x) => (pick(x.cpu) * 1000) / x.lines)).toFixed(3) : '–');
      return `| ${label} | ${Math.round(rate).toLocaleString('en')} | ${r ? median(r).toFixed(2) : '–'} | ${aim ? `≥ ${aim.toFixed(1)}` : '–'} | ${per1000((x) => x.node)} | ${per1000((x) => x.postgres)} | ${r ? r.map((v) => v.toFixed(2)).join(', ') : seconds[key]!.map((s) => Math.round(n / s)).join(', ')} |`;
    };
    const out = [
      `bench:import — ${persons.toLocaleString('en')} persons (${(bytes / 1e6).toFixed(0)} MB of NDJSON), ${rounds} rounds, medians, ${new Date().toISOString().slice(0, 10)}`,
      `machine: ${os.cpus().length} cores, load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; per round (1-min, start → end): ${Object.values(loads).map((l) => l.map((v) => v.toFixed(1)).join(' → ')).join(', ')}`,
      settings,
      `realistic file: ${lines.realistic!.toLocaleString('en')} lines = ${persons.toLocaleString('en')} persons + ${shape.identical} identical, ${shape.reverified} re-verified (fetched_at a day later) and ${shape.changed} changed repeats + ${shape.invalid} invalid lines; its load logs ${changeLog} changes`,
      '',
      `initial loads: chunks of 1,000 records, ${chunksPerCommit} per commit; CPU seconds per 1,000 lines: this process (Node) and the PostgreSQL backends of the bench's database (/proc)`,
      '',
      '| measure | lines/s | ratio to its ceiling (time) | aim | Node CPU s / 1k lines | PostgreSQL CPU s / 1k lines | per round |',
      '|---|---|---|---|---|---|---|',
      line('ceiling: COPY of the clean file\'s lake rows into the final tables, indexes and keys built after, ANALYZE', 'ceiling:clean', persons),
      line('enrich import --initial-load, empty lake, clean file', 'clean', persons, 'ceiling:clean', 0.8),
      line('ceiling: COPY of the realistic file\'s final lake rows, the same way', 'ceiling:realistic', persons),
      line(`enrich import --initial-load, empty lake, realistic file (${repeatShare} % repeats, ${invalidShare} % invalid)`, 'realistic', lines.realistic!, 'ceiling:realistic', 0.8),
      line('the same, gzip', 'realistic.gz', lines.realistic!, 'ceiling:realistic', 0.8),
    ];
    if (compareOnePerCommit) out.push(line('the same, plain, one chunk per commit (as before)', 'realistic, one chunk per commit', lines.realistic!, 'ceiling:realistic'));
    if (reimports) {
      out.push(
        line(`enrich import, full lake, every fetched_at moved, ${lanes} lanes`, 'later', persons, 'ceiling:clean', 0.5),
        line(`enrich import, full lake, every record unchanged, ${lanes} lanes`, 'unchanged', persons, 'ceiling:clean'),
        line('(anchor of earlier runs: COPY of the NDJSON into one jsonb column)', 'anchor', persons, 'ceiling:clean'),
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
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
