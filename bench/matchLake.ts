/**
 * The lake of `bench:match` (and `bench:match:profile`): the database `enrich_bench_match_<persons>`
 * holding the bench world's companies (renamed ones with their former names in the change log) and
 * its first 98% of persons (the last 2% are the `absent_unloaded` people), with the marker table
 * `bench_match_lake` (size, seed, loaded count and a fingerprint of sample records: another version
 * of the generator rebuilds the lake, the same one reuses it).
 *
 * Two ways to build it, the same content (checked at 2,000 persons: the same table counts, and the same digests of every row but its
 * ids and timestamps, in persons, positions, educations, refresh queue, companies and change log):
 * - `seed`: seedLake writes companies and persons through the lake's writer (150-200 persons/s
 *   on the loaded machine: 1.5 h at 1M);
 * - `import` (the default from 100,000 persons): companies by seedLake (the renames must go through
 *   the change log), the persons written as NDJSON by worker threads (`world.person(i)`, a range
 *   each) and loaded by `enrich import persons --initial-load`'s importFile (typed rows by COPY,
 *   indexes built after), then `vacuum analyze`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import type { Knex } from 'knex';
import pg from 'pg';
import { createWorld, type PersonResult, type World } from '../src/world';
import { nameKey, rivalKey, rivalOf, type RivalPerson } from '../src/world/matchQueries';
import { seedLake } from '../src/world/seed';
import { importFile } from '../src/domain/lake/importer';
import { recordValidator } from '../src/http/recordSchemas';
import { AS_OF, SEED } from './lib';

/** Held back from the lake: the last 2% of the world's persons (absent_unloaded). */
export const loadedOf = (persons: number) => persons - Math.floor(persons / 50);

export type LakeBuild = 'seed' | 'import';

/** The build used when none is asked for: the import from 100,000 persons on. */
export const defaultLakeBuild = (persons: number): LakeBuild => (persons >= 100_000 ? 'import' : 'seed');

/**
 * A digest of sample records (the first and last 20 companies and persons, and the renamed ones among
 * the companies): a lake built by another version of the generator is rebuilt, not reused.
 */
export function worldFingerprint(world: World): string {
  const hash = createHash('sha256');
  const sample = (n: number) => [...new Set([...Array(Math.min(20, n)).keys(), ...[...Array(Math.min(20, n)).keys()].map((k) => n - 1 - k)])];
  for (const i of sample(world.companies)) hash.update(JSON.stringify(world.company(i))).update(JSON.stringify(world.formerCompany(i) ?? null));
  for (const i of sample(world.persons)) hash.update(JSON.stringify(world.person(i)));
  return hash.digest('hex').slice(0, 16);
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Persons [from, to) of the world as NDJSON into `file` (runs in a worker thread). */
async function writePersonRange(persons: number, companies: number, from: number, to: number, file: string): Promise<void> {
  const world = createWorld({ persons, companies, seed: SEED, asOf: AS_OF });
  const out = fs.createWriteStream(file);
  let lines: string[] = [];
  for (let i = from; i < to; i++) {
    lines.push(JSON.stringify(world.person(i)));
    if (lines.length === 500 || i === to - 1) {
      if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
      lines = [];
    }
  }
  out.end();
  await once(out, 'finish');
}

function runWriter(persons: number, companies: number, from: number, to: number, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`, {
      eval: true,
      workerData: { role: 'bench-match-persons', persons, companies, from, to, file },
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`person writer ${from}..${to} exited with ${code}`))));
  });
}

/** Persons 0..loaded-1 as one NDJSON file, written by `writers` worker threads (a range each). */
export async function writeLoadedPersons(world: World, loaded: number, dir: string, writers = Math.max(1, os.cpus().length)): Promise<string> {
  await fs.promises.mkdir(dir, { recursive: true });
  const step = Math.ceil(loaded / writers);
  const parts = [...Array(writers).keys()].map((w) => ({ from: w * step, to: Math.min(loaded, (w + 1) * step), file: path.join(dir, `persons.${w}.ndjson`) })).filter((p) => p.from < p.to);
  await Promise.all(parts.map((p) => runWriter(world.persons, world.companies, p.from, p.to, p.file)));
  const file = path.join(dir, 'persons.ndjson');
  const out = fs.createWriteStream(file);
  for (const p of parts) {
    await pipeline(fs.createReadStream(p.file), out, { end: false });
    await fs.promises.rm(p.file);
  }
  out.end();
  await once(out, 'finish');
  return file;
}

/** Builds the lake's content into an empty lake (the tables truncated) by `build`. */
export async function buildMatchLake(knex: Knex, world: World, loaded: number, build: LakeBuild): Promise<void> {
  let last = 0;
  const progress = (p: { kind: string; done: number; total: number }) => {
    if (Date.now() - last > 10_000 || p.done === p.total) {
      last = Date.now();
      log(`  ${p.kind}: ${p.done}/${p.total}`);
    }
  };
  const options = { persons: world.persons, companies: world.companies, seed: SEED, asOf: AS_OF };
  if (build === 'seed') {
    await seedLake(knex, { ...options, loadPersons: loaded }, progress);
    return;
  }
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'bench-match-lake-'));
  try {
    const started = Date.now();
    // The person file is written while the companies are seeded (both mostly CPU: two cores).
    const [file] = await Promise.all([
      writeLoadedPersons(world, loaded, dir).then((f) => {
        log(`  persons file written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        return f;
      }),
      seedLake(knex, { ...options, loadPersons: 0 }, progress).then(() => log(`  companies seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`)),
    ]);
    const report = await importFile(knex, {
      kind: 'person',
      file,
      initialLoad: true,
      validate: recordValidator('PersonResult'),
      onProgress: (p) => {
        if (Date.now() - last > 30_000) {
          last = Date.now();
          log(`  import persons: ${p.lines} lines, ${p.written} written`);
        }
      },
    });
    if (!report.complete || report.written !== loaded || report.invalid !== 0) {
      throw new Error(`the person import wrote ${report.written} of ${loaded} (invalid ${report.invalid}, ${report.error ?? 'complete'}): ${JSON.stringify(report.errors.slice(0, 3))}`);
    }
    log(`  persons imported: ${report.written} in ${(report.elapsed_ms / 1000).toFixed(0)} s (${report.records_per_second}/s)`);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Reuses the lake when its marker matches this world, otherwise empties it and builds it again. */
export async function ensureMatchLake(knex: Knex, world: World, build: LakeBuild = defaultLakeBuild(world.persons)): Promise<void> {
  const { persons, companies } = world;
  const loaded = loadedOf(persons);
  const fingerprint = worldFingerprint(world);
  await knex.raw('create table if not exists bench_match_lake (persons integer, companies integer, seed integer, loaded integer)');
  await knex.raw('alter table bench_match_lake add column if not exists fingerprint text');
  const built = await knex('bench_match_lake').first();
  if (built && built.persons === persons && built.companies === companies && built.seed === SEED && built.loaded === loaded && built.fingerprint === fingerprint) {
    log(`reusing the match lake: ${loaded} of ${persons} persons, ${companies} companies`);
    return;
  }
  await knex.raw('truncate persons, person_positions, person_educations, person_refresh, companies, company_refresh, change_log, bench_match_lake');
  log(`building the match lake by ${build}: ${loaded} of ${persons} persons, ${companies} companies (once; later runs reuse it)`);
  const started = Date.now();
  await buildMatchLake(knex, world, loaded, build);
  await knex.raw('vacuum analyze persons, person_positions, person_educations, companies, change_log');
  await knex('bench_match_lake').insert({ persons, companies, seed: SEED, loaded, fingerprint });
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

if (!isMainThread && workerData?.role === 'bench-match-persons') {
  const { persons, companies, from, to, file } = workerData as { persons: number; companies: number; from: number; to: number; file: string };
  writePersonRange(persons, companies, from, to, file).catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}

/**
 * One read of the lake's persons for the labels of the queries: every name key worn in the lake
 * (nameKey: what `isTakenName` asks), and the loaded persons of the rival keys `wanted` (rivalKey:
 * what labelAmbiguousPersons looks up), as RivalPerson from their stored records (the world's
 * records as loaded: regenerating 980,000 persons would take a quarter of an hour at 1M).
 */
export async function lakeNamesAndRivals(url: string, wanted: ReadonlySet<string>): Promise<{ names: Set<string>; rivals: Map<string, RivalPerson[]> }> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 600_000, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; f: string | null; l: string | null }>("select id, record->>'first_name' as f, record->>'last_name' as l from persons");
    const names = new Set<string>();
    const ids: string[] = [];
    for (const r of rows) {
      names.add(nameKey(r.f ?? '', r.l ?? ''));
      if (wanted.has(rivalKey(r.l ?? ''))) ids.push(r.id);
    }
    const rivals = new Map<string, RivalPerson[]>();
    for (let k = 0; k < ids.length; k += 5000) {
      const { rows: records } = await client.query<{ record: PersonResult }>('select record from persons where id = any($1::uuid[])', [ids.slice(k, k + 5000)]);
      for (const { record } of records) {
        const key = rivalKey(record.last_name as string);
        const list = rivals.get(key);
        if (list === undefined) rivals.set(key, [rivalOf(record)]);
        else list.push(rivalOf(record));
      }
    }
    return { names, rivals };
  } finally {
    await client.end();
  }
}
