/**
 * A dedicated database per use, on the run's PostgreSQL server, holding either a seeded synthetic
 * world or only hand-made records, with a harness on it. Counts in the run's shared database are
 * polluted by every other test file; here a test knows exactly what the lake holds, so expected
 * results are computed in the test, in plain JS over the records (never by src/ query code).
 *
 * `asOf` defaults to today 00:00 UTC, so "recent" windows (counted from the real current month)
 * are meaningful for the world's records.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createKnex } from '../../src/db/knex';
import { databaseUrl } from '../../src/db/embedded';
import type { CompanyRecord, PersonRecord } from '../../src/model/records';
import { writeRecords } from '../../src/domain/lake/write/writer';
import { defaultAsOf } from '../../src/world/asOf';

/**
 * The world generator, loaded only where a world is generated (a template's first build, or its
 * saved records missing): it brings faker and its locales, ~0.4 s in every file that imports it,
 * and most files read the records their template's builder saved.
 */
const generator = () => require('../../src/world') as typeof import('../../src/world');
import { closeQueue, type BeforeClose } from './beforeClose';
import { createHarness, type Harness } from './harness';
import { createTestDatabaseOn, dropTestDatabase, prepareTestDatabase, prepareTestDatabaseAt, renameTestDatabase } from './clusterDatabase';

export interface LakeWorld {
  h: Harness;
  /** Owner key of a workspace with a generous rate limit. */
  key: string;
  /** The persons as the lake stores them (positions newest first), in world order. */
  persons: PersonRecord[];
  companies: CompanyRecord[];
  url: string;
  /** Stores more records (hand-made ones) and keeps `persons` / `companies` in step. */
  addPersons(...records: PersonRecord[]): Promise<void>;
  addCompanies(...records: CompanyRecord[]): Promise<void>;
  /** Drops a person from `persons` (after suppressing it). */
  forget(id: string): void;
}

export interface LakeWorldOptions {
  /** A synthetic world to load; omitted: an empty lake for hand-made records. */
  world?: { persons: number; companies: number; seed: number; asOf?: Date };
}

/**
 * The one seeded world of the lists' tests (people, companies, institutions, cursor paging): every
 * file that reads a seeded 3,000-person lake asks for this one, so the run builds one template (3,000
 * persons generated and written through the lake writer) instead of one per world, and each file
 * gets its own copy. Tests compute their expectations from the records, never from the seed's
 * particulars. Seed 2718: the world the EXPLAIN gate's read mix (bench/readMix.ts) is sized for.
 */
export const SHARED_WORLD = { persons: 3000, companies: 60, seed: 2718 } as const;

type Position = PersonRecord['positions'][number];

/** The lake serves positions newest first: current ones, then by start, latest first (stable). */
export function newestFirstPositions(positions: readonly Position[]): Position[] {
  return positions
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        Number(b.p.isCurrent) - Number(a.p.isCurrent) ||
        b.p.startYear - a.p.startYear ||
        b.p.startMonth - a.p.startMonth ||
        a.i - b.i,
    )
    .map((x) => x.p);
}

export const stored = (p: PersonRecord): PersonRecord => ({ ...p, positions: newestFirstPositions(p.positions) });

/**
 * A new database holding the lake `opts` describes, cloned from a template database (PostgreSQL's
 * CREATE DATABASE ... TEMPLATE, a file copy) that the first file to ask for that lake builds:
 * migrations and, for a world, its records. Several files (one per operation) test the same seeded
 * world; each gets its own copy to change, and the world is written once per run. Templates are
 * named after the run's database, and dropped with it (testDatabase.ts).
 */
/** Where a world template's builder saves its records (removed with the run's database, testDatabase.ts). */
const recordsFile = (template: string) => path.join(os.tmpdir(), `${template}.records.json`);

async function cloneLake(adminUrl: string, name: string, opts: LakeWorldOptions, asOf: Date | undefined): Promise<string> {
  const key = opts.world ? JSON.stringify({ ...opts.world, asOf: asOf!.toISOString() }) : 'empty';
  const runDatabase = process.env.TEST_DATABASE_NAME;
  if (!runDatabase) throw new Error('TEST_DATABASE_NAME is not set: run tests through jest');
  const template = `${runDatabase}_tpl_${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    // One builder per template, and one clone at a time: CREATE DATABASE refuses a template that
    // another session is connected to. Advisory locks are per database; every worker takes this
    // one in the admin database.
    await admin.query('select pg_advisory_lock(hashtext($1))', [template]);
    const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (!exists.rowCount) {
      // Built under another name and renamed when complete, so a failed build leaves no template.
      const building = `${template}_building`;
      await dropTestDatabase(adminUrl, building);
      await createTestDatabaseOn(adminUrl, building);
      const knex = createKnex(databaseUrl(adminUrl, building), 2);
      try {
        // Migrated; on a Citus cluster also laid out before the world is written (clusterDatabase.ts).
        await prepareTestDatabase(knex);
        if (opts.world) {
          const w = generator().createWorld({ ...opts.world, asOf: asOf! });
          const companies = [...w.companyRecords()] as CompanyRecord[];
          const persons = [...w.personRecords()].map((p) => stored(p as PersonRecord));
          for (let i = 0; i < companies.length; i += 500) await writeRecords(knex, 'company', companies.slice(i, i + 500));
          for (let i = 0; i < persons.length; i += 500) await writeRecords(knex, 'person', persons.slice(i, i + 500));
          fs.writeFileSync(recordsFile(template), JSON.stringify({ companies, persons }));
        }
      } finally {
        await knex.destroy();
      }
      await renameTestDatabase(adminUrl, building, template);
    }
    await createTestDatabaseOn(adminUrl, name, { template });
    return template;
  } finally {
    await admin.query('select pg_advisory_unlock(hashtext($1))', [template]).catch(() => undefined);
    await admin.end();
  }
}

export async function createLakeWorld(opts: LakeWorldOptions = {}): Promise<{ world: LakeWorld; close(): Promise<void> }> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ADMIN_DATABASE_URL is not set: run tests through jest');
  const name = `enrich_world_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const asOf = opts.world ? (opts.world.asOf ?? defaultAsOf()) : undefined;
  const template = await cloneLake(adminUrl, name, opts, asOf);
  const url = databaseUrl(adminUrl, name);
  // On Citus: what a copy of the template does not carry (database-level settings).
  await prepareTestDatabaseAt(url);
  let h: Harness | undefined;
  try {
    h = await createHarness({ databaseUrl: url });
    const persons: PersonRecord[] = [];
    const companies: CompanyRecord[] = [];
    if (opts.world) {
      // The records the template was built from, as its builder saved them (generating 3,000 persons
      // again in every file that reads the world cost more than reading them); generated again,
      // the same records (the generator is deterministic), when the file is missing.
      const saved = fs.existsSync(recordsFile(template))
        ? (JSON.parse(fs.readFileSync(recordsFile(template), 'utf8')) as { companies: CompanyRecord[]; persons: PersonRecord[] })
        : undefined;
      if (saved) {
        companies.push(...saved.companies);
        persons.push(...saved.persons);
      } else {
        const w = generator().createWorld({ ...opts.world, asOf: asOf! });
        for (const c of w.companyRecords()) companies.push(c as CompanyRecord);
        for (const p of w.personRecords()) persons.push(stored(p as PersonRecord));
      }
    }
    const { key } = await h.workspace({ rateLimit: 100_000 });
    const harness = h;
    const world: LakeWorld = {
      h: harness,
      key,
      persons,
      companies,
      url,
      addPersons: async (...records) => {
        await writeRecords(harness.knex, 'person', records);
        for (const r of records) {
          const i = persons.findIndex((p) => p.id === r.id);
          if (i >= 0) persons[i] = stored(r);
          else persons.push(stored(r));
        }
      },
      addCompanies: async (...records) => {
        await writeRecords(harness.knex, 'company', records);
        companies.push(...records);
      },
      forget: (id) => {
        const i = persons.findIndex((p) => p.id === id);
        if (i >= 0) persons.splice(i, 1);
      },
    };
    return {
      world,
      close: async () => {
        await harness.close();
        await dropTestDatabase(adminUrl, name);
      },
    };
  } catch (err) {
    await h?.close().catch(() => undefined);
    await dropTestDatabase(adminUrl, name).catch(() => undefined);
    throw err;
  }
}

/**
 * The per-describe setup: a dedicated lake (world or empty) created before the block's tests and
 * dropped after. The returned object forwards to the LakeWorld once beforeAll has run.
 */
export function useLakeWorld(opts: LakeWorldOptions = {}): LakeWorld & { beforeClose: BeforeClose } {
  let current: { world: LakeWorld; close(): Promise<void> } | undefined;
  // What must stop before the lake's database is dropped: apps and pools the file opened on it.
  const closing = closeQueue();
  beforeAll(async () => {
    current = await createLakeWorld(opts);
  }, 180_000);
  afterAll(async () => {
    await closing.run();
    await current?.close();
  }, 60_000);
  return new Proxy({} as LakeWorld & { beforeClose: BeforeClose }, {
    get: (_t, prop) => {
      if (prop === 'beforeClose') return closing.beforeClose;
      if (!current) throw new Error('useLakeWorld: the lake is only available inside tests');
      return current.world[prop as keyof LakeWorld];
    },
  });
}

// ---- Expectations, in plain JS ---------------------------------------------------------------

export const HIT_FIELDS = [
  'id', 'full_name', 'username', 'network_url', 'current_title', 'current_company', 'current_company_id',
  'seniority', 'geo_city', 'geo_country_code', 'education_schools', 'past_companies', 'fetched_at',
] as const;

export function personHit(p: PersonRecord): Record<string, unknown> {
  return Object.fromEntries(HIT_FIELDS.map((f) => [f, (p as unknown as Record<string, unknown>)[f]]));
}

export const COMPANY_HIT_FIELDS = [
  'id', 'company_id', 'name', 'username', 'network_url', 'industries', 'staff_count', 'hq_city',
  'hq_country_code', 'founded_year', 'fetched_at',
] as const;

export function companyHit(c: CompanyRecord): Record<string, unknown> {
  return Object.fromEntries(COMPANY_HIT_FIELDS.map((f) => [f, (c as unknown as Record<string, unknown>)[f]]));
}

/** Binary (code-point) string order, as JS `<`. */
export const binary = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
export const byId = (a: { id: string }, b: { id: string }) => binary(a.id.toLowerCase(), b.id.toLowerCase());
const ms = (s: string) => new Date(s).getTime();
/** Most recently verified first, then id. */
export const byRecent = (a: PersonRecord, b: PersonRecord) => ms(b.fetched_at) - ms(a.fetched_at) || byId(a, b);

const BAND: Record<string, number> = { 'c-level': 1, vp: 2, director: 3, manager: 4 };
export const bandRank = (s: string | null | undefined) => (s ? (BAND[s] ?? 5) : 5);
/** Company staff order: band (c-level first, no band last), then full_name in binary order, then id. */
export const byStaff = (a: PersonRecord, b: PersonRecord) =>
  bandRank(a.seniority) - bandRank(b.seniority) || binary(a.full_name, b.full_name) || byId(a, b);

/** Numeric company-ID equality (leading zeros ignored); null/empty never equal. */
export function sameCompanyId(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a == null || b == null || !/^[0-9]+$/.test(a) || !/^[0-9]+$/.test(b)) return false;
  return BigInt(a) === BigInt(b);
}

/** Month index (year * 12 + month - 1); unknown month (null or 0) = January. */
export const monthIndex = (year: number, month: number | null | undefined) => year * 12 + (month && month >= 1 ? month : 1) - 1;

/** First month index inside a `withinMonths` window counted from the current UTC month. */
export function windowStart(withinMonths: number, now = new Date()): number {
  return now.getUTCFullYear() * 12 + now.getUTCMonth() - (withinMonths - 1);
}

export const currentPosition = (p: PersonRecord) => (p.positions[0]?.isCurrent ? p.positions[0] : undefined);
export const previousPosition = (p: PersonRecord) => p.positions.find((x) => !x.isCurrent);

/** Words as the 'simple' text-search configuration splits them: lower-case, at spaces and punctuation. */
export const words = (text: string | null | undefined): string[] =>
  (text ?? '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** Page `page` of `items` with `perPage` per page. */
export const pageOf = <T>(items: T[], page: number, perPage: number): T[] => items.slice((page - 1) * perPage, page * perPage);
