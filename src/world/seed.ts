/**
 * `enrich seed` and the demo world: the deterministic synthetic world (src/world) loaded into the
 * lake through the same write path as imports, or written out as NDJSON files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { Knex } from 'knex';
import { createWorld, type CompanyResult, type World, type WorldOptions } from '.';
import { storedCompanyIds } from '../db/repositories/companyRecords';
import type { LakeKind } from '../model/records';
import { writeRecords } from '../domain/lake/write/writer';

export interface SeedProgress {
  kind: LakeKind;
  done: number;
  total: number;
}

export interface SeedReport {
  companies: number;
  persons: number;
  /** Persons of the world written to the lake (the first ones); the rest only the simulator knows. */
  loaded_persons: number;
  seed: number;
  as_of: string;
  elapsed_ms: number;
}

const BATCH = 1000;

function seedReport(world: World, started: number, loadedPersons = world.persons): SeedReport {
  return {
    companies: world.companies,
    persons: world.persons,
    loaded_persons: loadedPersons,
    seed: world.seed,
    as_of: world.asOf.toISOString(),
    elapsed_ms: Date.now() - started,
  };
}

function* batches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** The renamed companies under their former names (World.formerCompany). */
function* formerCompanies(world: World): Generator<CompanyResult> {
  for (let i = 0; i < world.companies; i++) {
    const former = world.formerCompany(i);
    if (former !== undefined) yield former;
  }
}

/**
 * The former-name records of renamed companies the lake does not hold yet: loading the same world
 * again must change nothing (a stored company is never renamed back and forth).
 */
async function* unstoredFormerCompanies(db: Knex, world: World): AsyncGenerator<CompanyResult[]> {
  for (const batch of batches(formerCompanies(world), BATCH)) {
    const stored = await storedCompanyIds(db, batch.map((c) => c.id.toLowerCase()));
    const fresh = batch.filter((c) => !stored.has(c.id.toLowerCase()));
    if (fresh.length) yield fresh;
  }
}

/** The first `count` persons of the world. */
function* firstPersons(world: World, count: number): Generator<object> {
  for (let i = 0; i < count; i++) yield world.person(i);
}

/**
 * Loads the world (or, with `loadPersons`, only its first persons: a live-source simulator of the
 * same world then knows profiles the lake does not), renamed companies first as they were; the
 * next batch is generated while the previous one is being written.
 */
export async function seedLake(
  db: Knex,
  options: WorldOptions & { loadPersons?: number },
  onProgress?: (progress: SeedProgress) => void,
): Promise<SeedReport> {
  const started = Date.now();
  const world = createWorld(options);
  const loadPersons = Math.min(options.loadPersons ?? world.persons, world.persons);
  const load = async (kind: LakeKind, records: Iterable<object>, total: number) => {
    let done = 0;
    let pending: Promise<unknown> = Promise.resolve();
    for (const batch of batches(records, BATCH)) {
      await pending;
      pending = writeRecords(db, kind, batch as never).then(() => {
        done += batch.length;
        onProgress?.({ kind, done, total });
      });
    }
    await pending;
  };
  // Renamed companies are written first under their former name: the current record then logs the
  // rename in the lake's change log (company.name_changed with old_name), which is how the lake
  // knows a company by a name it no longer carries.
  for await (const former of unstoredFormerCompanies(db, world)) await writeRecords(db, 'company', former as never);
  await load('company', world.companyRecords(), world.companies);
  await load('person', firstPersons(world, loadPersons), loadPersons);
  return seedReport(world, started, loadPersons);
}

/** Writes `companies.ndjson` and `persons.ndjson` into `dir`, ready for `enrich import`. */
export async function writeWorldFiles(
  dir: string,
  options: WorldOptions,
  onProgress?: (progress: SeedProgress) => void,
): Promise<SeedReport & { files: string[] }> {
  const started = Date.now();
  const world = createWorld(options);
  await fs.promises.mkdir(dir, { recursive: true });
  const files: string[] = [];
  const writeFile = async (kind: LakeKind, name: string, records: Iterable<object>, total: number) => {
    const file = path.join(dir, name);
    const out = fs.createWriteStream(file);
    let done = 0;
    for (const batch of batches(records, BATCH)) {
      if (!out.write(batch.map((r) => JSON.stringify(r)).join('\n') + '\n')) await once(out, 'drain');
      done += batch.length;
      onProgress?.({ kind, done, total });
    }
    out.end();
    await once(out, 'finish');
    files.push(file);
  };
  await writeFile('company', 'companies.ndjson', world.companyRecords(), world.companies);
  await writeFile('person', 'persons.ndjson', world.personRecords(), world.persons);
  return { ...seedReport(world, started), files };
}
