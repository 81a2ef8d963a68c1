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
import type { Knex } from 'knex';
import pg from 'pg';
import { type PersonResult, type World } from '../src/world';
import { nameKey, rivalKey, rivalOf, type RivalPerson } from '../src/world/matchQueries';
import { seedLake } from '../src/world/seed';
import { importLake, writeLoadedPersons as writeLakePersons } from './lakeImport';
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

/** Persons 0..loaded-1 of the bench world as one NDJSON file (bench/lakeImport.ts, shared with ensureLake). */
export const writeLoadedPersons = (world: World, loaded: number, dir: string, writers?: number): Promise<string> =>
  writeLakePersons({ world, seed: SEED, asOf: AS_OF }, loaded, dir, writers);

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
  // The import build, shared with bench/lib.ts ensureLake (bench/lakeImport.ts).
  await importLake(knex, { world, seed: SEED, asOf: AS_OF }, loaded, progress);
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
