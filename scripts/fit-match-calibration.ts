/**
 * Fits the match model (src/domain/match/parameters.ts) on labelled queries from ONE world seed, so
 * that `npm run bench:match` (another world seed, other query seeds) measures it on data it never saw.
 *
 *   DATABASE_URL=postgres://... npx tsx scripts/fit-match-calibration.ts [--persons=50000] [--world-seed=101]
 *     [--seed=7] [--count=4000] [--company-count=1200] [--write]
 *
 * 1. A lake of that world in the database `enrich_fit_match_<persons>_<world seed>` (built once,
 *    reused), the last 2 % of persons held back as absent people, as the bench does.
 * 2. Queries from src/world/matchQueries.ts (default noise mix) through the engine's own stages
 *    (the candidates and comparisons of domain/match, no HTTP).
 * 3. m and u per field and level, Fellegi-Sunter style: m counted on each query against the record
 *    it was made from (Splink's `estimate_m_from_label_column`), u on the query against random
 *    records of the lake (Splink's `estimate_u_using_random_sampling`), each with the hand-set
 *    PRIORS as Dirichlet pseudo-counts. The competition among the candidates found by blocking is
 *    not in the weights: calibrate.ts shares the likelihood among them.
 * 4. The calibration (a, b): the likelihood of the best candidate after sharing among rivals
 *    (calibrate.ts) against whether it is the right one, log loss minimised over a grid then refined.
 * 5. Prints the fit's own ECE and Brier score; `--write` rewrites parameters.ts.
 *
 * `--only=company` refits the company model alone and keeps the committed person parameters: its lake
 * (`enrich_fit_match_<persons>_<world seed>_companies`) holds the world's companies only (seedLake
 * with no person: a few minutes at 100,000 companies), so the company model can be fitted at the
 * 1M world's size (`--persons=1000000`: 100,000 companies) on a world seed the bench never uses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKnex, migrateLatest, type Knex } from '../src/db/knex';
import { compareCompanyCandidates, companyInput, rankCompanies, compareCompany as compareCompanyFields } from '../src/domain/match/company';
import type { Comparison, Level } from '../src/domain/match/compare';
import { PARAMETERS, PRIORS, type KindParameters, type MatchParameters } from '../src/domain/match/parameters';
import { comparePersonCandidates, personInput, rankPersons } from '../src/domain/match/person';
import { comparePerson, type PersonCandidate } from '../src/domain/match/compare';
import { resolveEmployers, type CompanyCandidateRecord } from '../src/domain/match/candidates';
import { findCompanyRecordTexts, findFormerCompanyNames, findPersonRecordTexts, sampleRecordTexts } from '../src/db/repositories/matchCandidates';
import { AppError } from '../src/domain/errors';
import { createWorld } from '../src/world';
import { generateCompanyMatchQueries, generateMatchQueries, normalizedName } from '../src/world/matchQueries';
import { seedLake } from '../src/world/seed';

const arg = (name: string, fallback: number) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split('=')[1]) : fallback;
};
const PERSONS = arg('persons', 50_000);
const COMPANIES = arg('companies', Math.round(PERSONS / 10));
const WORLD_SEED = arg('world-seed', 101);
const QUERY_SEED = arg('seed', 7);
const COUNT = arg('count', 4000);
const COMPANY_COUNT = arg('company-count', 1200);
const AS_OF = new Date('2026-11-01T00:00:00Z');
const ONLY_COMPANY = process.argv.includes('--only=company');
const loadedOf = (persons: number) => persons - Math.floor(persons / 50);

interface Compared {
  expectedId: string | null;
  noise?: string;
  /** The query against the record it was made from (m), and against random records (u). */
  truth?: Comparison[];
  random?: Comparison[][];
  candidates: { id: string; comparisons: Comparison[] }[];
}

async function lake(): Promise<Knex> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('set DATABASE_URL to a PostgreSQL server the script may create a database on');
  const name = `enrich_fit_match_${PERSONS}_${WORLD_SEED}${ONLY_COMPANY ? '_companies' : ''}`;
  const server = createKnex(admin, 1);
  try {
    const exists = await server.raw('select 1 from pg_database where datname = ?', [name]);
    if (exists.rows.length === 0) await server.raw(`create database "${name}"`);
  } finally {
    await server.destroy();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const knex = createKnex(url.toString(), 4);
  await migrateLatest(knex);
  await knex.raw('create table if not exists fit_match_lake (persons integer, companies integer, seed integer)');
  const built = await knex('fit_match_lake').first();
  if (!built || built.persons !== PERSONS || built.companies !== COMPANIES || built.seed !== WORLD_SEED) {
    process.stderr.write(`building the lake: ${PERSONS} persons of world seed ${WORLD_SEED}\n`);
    await knex.raw('truncate persons, person_positions, person_educations, person_refresh, companies, company_refresh, change_log, fit_match_lake');
    await seedLake(knex, { persons: PERSONS, companies: COMPANIES, seed: WORLD_SEED, asOf: AS_OF, loadPersons: ONLY_COMPANY ? 0 : loadedOf(PERSONS) });
    await knex.raw('vacuum analyze persons, companies, change_log');
    await knex('fit_match_lake').insert({ persons: PERSONS, companies: COMPANIES, seed: WORLD_SEED });
  }
  return knex;
}

/** Pseudo-counts of the prior (the committed m and u) in each estimate: a Dirichlet prior, so a
 * level seen rarely among the labelled candidates keeps close to its prior instead of swinging. */
const PRIOR_WEIGHT = 30;
/** Random records each query is compared with, for u. */
const RANDOM_PAIRS = 8;

/** m and u of every level: labelled counts among true (m) and other (u) candidates, with the prior's pseudo-counts. */
function estimate(compared: Compared[], prior: KindParameters, log: (line: string) => void): KindParameters['fields'] {
  const counts: Record<string, { m: Record<string, number>; u: Record<string, number> }> = {};
  const add = (side: 'm' | 'u', comparisons: readonly Comparison[]) => {
    for (const e of comparisons) {
      if (e.level === 'missing_in_record') continue;
      const f = (counts[e.field] ??= { m: {}, u: {} });
      f[side][e.level] = (f[side][e.level] ?? 0) + 1;
    }
  };
  // m: the query against the record it was made from (found by blocking or not); u: against random records.
  for (const q of compared) {
    if (q.truth) add('m', q.truth);
    for (const r of q.random ?? []) add('u', r);
  }
  const fields: KindParameters['fields'] = {};
  for (const [field, levels] of Object.entries(prior.fields)) {
    const c = counts[field] ?? { m: {}, u: {} };
    const names = Object.keys(levels) as Level[];
    const mSum = names.reduce((s, l) => s + (c.m[l] ?? 0), 0);
    const uSum = names.reduce((s, l) => s + (c.u[l] ?? 0), 0);
    const priorM = names.reduce((s, l) => s + levels[l]!.m, 0);
    const priorU = names.reduce((s, l) => s + levels[l]!.u, 0);
    fields[field] = Object.fromEntries(
      names.map((l) => [
        l,
        {
          m: round(((c.m[l] ?? 0) + PRIOR_WEIGHT * (levels[l]!.m / priorM)) / (mSum + PRIOR_WEIGHT)),
          u: round(((c.u[l] ?? 0) + PRIOR_WEIGHT * (levels[l]!.u / priorU)) / (uSum + PRIOR_WEIGHT)),
        },
      ]),
    );
    log(`  ${field}: ${names.map((l) => `${l} m=${c.m[l] ?? 0} u=${c.u[l] ?? 0}`).join(', ')}\n`);
  }
  return fields;
}

const round = (x: number) => Number(x.toPrecision(4));

type Ranker = (cands: Compared['candidates'], p: MatchParameters) => { id: string; likelihood: number }[];

/** The best candidate's likelihood and correctness per query, under parameters p. */
function outcomes(compared: Compared[], p: MatchParameters, ranker: Ranker) {
  return compared.map((q) => {
    const best = ranker(q.candidates, p)[0];
    return best ? { p: best.likelihood, right: best.id === q.expectedId } : { p: 0, right: false };
  });
}

function logLoss(o: { p: number; right: boolean }[]): number {
  const eps = 1e-6;
  return o.reduce((s, x) => s - Math.log(x.right ? Math.max(eps, x.p) : Math.max(eps, 1 - x.p)), 0) / o.length;
}

export function ece(o: { p: number; right: boolean }[], bins = 10): number {
  let total = 0;
  for (let b = 0; b < bins; b++) {
    const inBin = o.filter((x) => Math.min(bins - 1, Math.floor(x.p * bins)) === b);
    if (inBin.length === 0) continue;
    const conf = inBin.reduce((s, x) => s + x.p, 0) / inBin.length;
    const acc = inBin.filter((x) => x.right).length / inBin.length;
    total += (inBin.length / o.length) * Math.abs(conf - acc);
  }
  return total;
}

function fitCalibration(compared: Compared[], base: MatchParameters, kind: 'person' | 'company', ranker: Ranker) {
  const withCal = (a: number, b: number): MatchParameters => ({ ...base, [kind]: { ...base[kind], calibration: { a, b } } });
  let best = { a: 1, b: 0, loss: Infinity };
  for (let a = 0.05; a <= 2.0001; a += 0.05) {
    for (let b = -30; b <= 10.0001; b += 0.5) {
      const loss = logLoss(outcomes(compared, withCal(a, b), ranker));
      if (loss < best.loss) best = { a, b, loss };
    }
  }
  // Refine around the grid's best.
  for (let step = 0.05; step >= 0.005; step /= 2) {
    for (const [da, db] of [[step, 0], [-step, 0], [0, step * 4], [0, -step * 4]] as const) {
      const loss = logLoss(outcomes(compared, withCal(best.a + da, best.b + db), ranker));
      if (loss < best.loss) best = { a: best.a + da, b: best.b + db, loss };
    }
  }
  return { a: round(best.a), b: round(best.b), loss: best.loss };
}

async function main() {
  const knex = await lake();
  const world = createWorld({ persons: PERSONS, companies: COMPANIES, seed: WORLD_SEED, asOf: AS_OF });
  const loaded = loadedOf(PERSONS);
  const names = new Set<string>();
  if (!ONLY_COMPANY) for (let i = 0; i < loaded; i++) names.add(normalizedName(world.person(i).full_name as string));
  const personQueries = ONLY_COMPANY ? [] : generateMatchQueries(world, { seed: QUERY_SEED, count: COUNT, loadedPersons: loaded, isTakenName: (n) => names.has(n) });
  const companyQueries = generateCompanyMatchQueries(world, { seed: QUERY_SEED, count: COMPANY_COUNT });
  process.stderr.write(`${personQueries.length} person and ${companyQueries.length} company queries\n`);

  const cacheFile = `${require('node:os').tmpdir()}/enrich-fit-match-${PERSONS}-${WORLD_SEED}-${QUERY_SEED}-${COUNT}-${COMPANY_COUNT}${ONLY_COMPANY ? '-companies' : ''}.json`;
  const fs = await import('node:fs');
  if (process.argv.includes('--cached') && fs.existsSync(cacheFile)) {
    const cached = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { persons: Compared[]; companies: Compared[] };
    await knex.destroy();
    return fit(cached.persons, cached.companies);
  }
  // Random records for u: a sample of each table, each query compared with RANDOM_PAIRS of them.
  const personPool = ONLY_COMPANY ? [] : (await sampleRecordTexts(knex, 'person', 5, 3000)).map((r) => JSON.parse(r.record) as PersonCandidate);
  const companyPool = (await sampleRecordTexts(knex, 'company', 20, 1000)).map((r) => JSON.parse(r.record) as CompanyCandidateRecord);
  const recordOf = async (id: string) => (await findPersonRecordTexts(knex, [id]))[0];
  const persons: Compared[] = [];
  let k = 0;
  for (const q of personQueries) {
    try {
      const input = personInput(q.query);
      if (input.kind !== 'query') continue;
      const compared = await comparePersonCandidates(knex, input.query);
      const resolved = await resolveEmployers(knex, input.query);
      const own = q.expectedId ? await recordOf(q.expectedId) : undefined;
      const random: Comparison[][] = [];
      for (let r = 0; r < RANDOM_PAIRS; r++) {
        const other = personPool[k++ % personPool.length]!;
        if (other.id !== q.expectedId) random.push(comparePerson(input.query, other, resolved));
      }
      persons.push({
        expectedId: q.expectedId,
        noise: q.noise,
        truth: own ? comparePerson(input.query, JSON.parse(own.record) as PersonCandidate, resolved) : undefined,
        random,
        candidates: compared.map((c) => ({ id: c.item.candidate.id, comparisons: c.comparisons })),
      });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
    }
  }
  const companies: Compared[] = [];
  for (const q of companyQueries) {
    try {
      const input = companyInput(q.query);
      if (input.kind !== 'query') continue;
      const compared = await compareCompanyCandidates(knex, input.query);
      let truth: Comparison[] | undefined;
      if (q.expectedId) {
        const own = (await findCompanyRecordTexts(knex, [q.expectedId]))[0];
        const former = (await findFormerCompanyNames(knex, [q.expectedId])).map((f) => f.former_name);
        if (own) truth = compareCompanyFields(input.query, { candidate: JSON.parse(own.record), text: '', formerNames: former });
      }
      const random: Comparison[][] = [];
      for (let r = 0; r < RANDOM_PAIRS; r++) {
        const other = companyPool[k++ % companyPool.length]!;
        if (other.id !== q.expectedId) random.push(compareCompanyFields(input.query, { candidate: other, text: '', formerNames: [] }));
      }
      companies.push({ expectedId: q.expectedId, noise: q.noise, truth, random, candidates: compared.map((c) => ({ id: c.item.candidate.id, comparisons: c.comparisons })) });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
    }
  }
  await knex.destroy();
  fs.writeFileSync(cacheFile, JSON.stringify({ persons, companies }));
  return fit(persons, companies);
}

/** The comparisons of the candidates go through the committed code's comparison rules: a cache is only valid for them (--cached). */
function fit(persons: Compared[], companies: Compared[]) {
  // Rankers over the stored comparisons (items rebuilt with only what ranking reads: the id).
  const personRanker: Ranker = (cands, p) =>
    rankPersons(cands.map((c) => ({ item: { candidate: { id: c.id }, text: '' } as never, comparisons: c.comparisons })), p).map((r) => ({
      id: (r.item as unknown as { candidate: { id: string } }).candidate.id,
      likelihood: r.verdict.likelihood,
    }));
  const companyRanker: Ranker = (cands, p) =>
    rankCompanies(cands.map((c) => ({ item: { candidate: { id: c.id }, text: '', formerNames: [] } as never, comparisons: c.comparisons })), p).map((r) => ({
      id: (r.item as unknown as { candidate: { id: string } }).candidate.id,
      likelihood: r.verdict.likelihood,
    }));

  const fitted: MatchParameters = {
    fitted: {
      seed: WORLD_SEED,
      queries: persons.length + companies.length,
      mix: 'default (DEFAULT_PERSON_MIX, DEFAULT_COMPANY_MIX)',
      at: ONLY_COMPANY
        ? `company: world seed ${WORLD_SEED}, ${COMPANIES} companies (the ${PERSONS}-person world's), query seed ${QUERY_SEED}, --only=company; person: ${PARAMETERS.fitted?.at ?? 'unfitted'}`
        : `world seed ${WORLD_SEED}, ${PERSONS} persons / ${COMPANIES} companies, query seed ${QUERY_SEED}`,
      script: 'scripts/fit-match-calibration.ts',
    },
    person: ONLY_COMPANY ? PARAMETERS.person : { fields: estimate(persons, PRIORS.person, (l) => process.stderr.write(`person${l}`)), calibration: PRIORS.person.calibration },
    company: { fields: estimate(companies, PRIORS.company, (l) => process.stderr.write(`company${l}`)), calibration: PRIORS.company.calibration },
  };
  if (!ONLY_COMPANY) {
    const pc = fitCalibration(persons, fitted, 'person', personRanker);
    fitted.person.calibration = { a: pc.a, b: pc.b };
  }
  const cc = fitCalibration(companies, fitted, 'company', companyRanker);
  fitted.company.calibration = { a: cc.a, b: cc.b };

  for (const [kind, set, ranker] of [['person', persons, personRanker], ['company', companies, companyRanker]] as const) {
    if (!set.length) continue;
    const before = outcomes(set, PARAMETERS, ranker);
    const after = outcomes(set, fitted, ranker);
    const brier = (o: typeof after) => o.reduce((s, x) => s + (x.p - (x.right ? 1 : 0)) ** 2, 0) / o.length;
    process.stdout.write(
      `${kind}: ${set.length} queries; committed parameters ECE ${ece(before).toFixed(4)} Brier ${brier(before).toFixed(4)}; fitted ECE ${ece(after).toFixed(4)} Brier ${brier(after).toFixed(4)} (fit set, in-sample)\n`,
    );
    const classes = [...new Set(set.map((q) => q.noise ?? '?'))];
    for (const noise of classes) {
      const rows = set.map((q, i) => ({ q, o: after[i]! })).filter((x) => (x.q.noise ?? '?') === noise);
      const right = rows.filter((x) => x.o.right && x.o.p >= 0.7).length;
      const wrong = rows.filter((x) => !x.o.right && x.o.p >= 0.7).length;
      const best = rows.filter((x) => x.o.right).length;
      process.stdout.write(`    ${noise.padEnd(22)} n=${String(rows.length).padStart(4)} right@0.7=${right} wrong@0.7=${wrong} bestRight=${best}\n`);
    }
    const present = set.map((q, i) => ({ q, o: after[i]! })).filter((x) => x.q.expectedId !== null);
    const answered = after.filter((o) => o.p >= 0.7);
    const confident = after.filter((o) => o.p >= 0.9);
    process.stdout.write(
      `  fitted: recall at 0.7 ${(present.filter((x) => x.o.right && x.o.p >= 0.7).length / present.length).toFixed(3)}, precision at 0.7 ${(answered.filter((o) => o.right).length / answered.length).toFixed(3)}, precision at 0.9 ${(confident.filter((o) => o.right).length / confident.length).toFixed(3)}, best candidate right ${(present.filter((x) => x.o.right).length / present.length).toFixed(3)}\n`,
    );
  }
  process.stdout.write(`${JSON.stringify(fitted, null, 2)}\n`);
  if (process.argv.includes('--write')) {
    const file = join(__dirname, '..', 'src', 'domain', 'match', 'parameters.ts');
    const source = readFileSync(file, 'utf8');
    const start = source.indexOf('export const PARAMETERS: MatchParameters = ');
    writeFileSync(file, `${source.slice(0, start)}export const PARAMETERS: MatchParameters = ${JSON.stringify(fitted, null, 2)};\n`);
    process.stdout.write(`wrote ${file}\n`);
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
