/**
 * The import build of a bench lake, shared by bench/lib.ts ensureLake (the `bench:scale` /
 * `bench:read` lakes, every person loaded) and bench/matchLake.ts (the match lake, the last 2 %
 * held back): companies by seedLake (the renames must go through the change log), the first
 * `loaded` persons written as NDJSON by worker threads (`world.person(i)`, a range each) and
 * loaded by `enrich import persons --initial-load`'s importFile (typed rows by COPY, indexes built
 * after). The same content as seedLake's (checked at 2,000 persons: the same table counts and the
 * same digests of every row but its ids and timestamps); at 1M about 41 min on a quiet machine
 * against seedLake's 1.5 h.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import type { Knex } from 'knex';
import { createWorld, type World } from '../src/world';
import { seedLake, type SeedProgress } from '../src/world/seed';
import { importFile } from '../src/domain/lake/importer';
import { recordValidator } from '../src/http/recordSchemas';

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The world a lake is built from: its seed and date (the bench's SEED and AS_OF). */
export interface LakeWorld {
  world: World;
  seed: number;
  asOf: Date;
}

interface RangeJob {
  persons: number;
  companies: number;
  seed: number;
  asOf: string;
  from: number;
  to: number;
  file: string;
}

/** Persons [from, to) of the world as NDJSON into `file` (runs in a worker thread). */
async function writePersonRange(job: RangeJob): Promise<void> {
  const world = createWorld({ persons: job.persons, companies: job.companies, seed: job.seed, asOf: new Date(job.asOf) });
  const out = fs.createWriteStream(job.file);
  let lines: string[] = [];
  for (let i = job.from; i < job.to; i++) {
    lines.push(JSON.stringify(world.person(i)));
    if (lines.length === 500 || i === job.to - 1) {
      if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
      lines = [];
    }
  }
  out.end();
  await once(out, 'finish');
}

function runWriter(job: RangeJob): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`, {
      eval: true,
      workerData: { role: 'bench-lake-persons', job },
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`person writer ${job.from}..${job.to} exited with ${code}`))));
  });
}

/** Persons 0..loaded-1 as one NDJSON file, written by `writers` worker threads (a range each). */
export async function writeLoadedPersons(lake: LakeWorld, loaded: number, dir: string, writers = Math.max(1, os.cpus().length)): Promise<string> {
  await fs.promises.mkdir(dir, { recursive: true });
  const step = Math.ceil(loaded / writers);
  const base = { persons: lake.world.persons, companies: lake.world.companies, seed: lake.seed, asOf: lake.asOf.toISOString() };
  const parts = [...Array(writers).keys()]
    .map((w) => ({ ...base, from: w * step, to: Math.min(loaded, (w + 1) * step), file: path.join(dir, `persons.${w}.ndjson`) }))
    .filter((p) => p.from < p.to);
  await Promise.all(parts.map(runWriter));
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

/**
 * Builds the lake's content into an empty lake (the tables truncated): the world's companies by
 * seedLake, its first `loaded` persons by the initial-load import. The caller vacuums and marks it.
 */
export async function importLake(knex: Knex, lake: LakeWorld, loaded: number, progress: (p: SeedProgress) => void): Promise<void> {
  const { world, seed, asOf } = lake;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'bench-lake-'));
  let last = 0;
  try {
    const started = Date.now();
    // The person file is written while the companies are seeded (both mostly CPU: two cores).
    const [file] = await Promise.all([
      writeLoadedPersons(lake, loaded, dir).then((f) => {
        log(`  persons file written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        return f;
      }),
      seedLake(knex, { persons: world.persons, companies: world.companies, seed, asOf, loadPersons: 0 }, progress).then(() =>
        log(`  companies seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`),
      ),
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

if (!isMainThread && workerData?.role === 'bench-lake-persons') {
  writePersonRange((workerData as { job: RangeJob }).job).catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
