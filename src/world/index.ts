/**
 * A deterministic, coherent synthetic world of companies and persons (issue 3, "A synthetic
 * world"), generated with @faker-js/faker for `enrich seed` and the benchmarks.
 *
 * Determinism: the same (persons, companies, seed, asOf) gives byte-identical JSON for every
 * record, on every run and machine, with the same code, tables and @faker-js/faker version (faker's
 * locale data is part of the output; the version is pinned in package-lock.json). Nothing reads the
 * clock or Math.random: every date is relative to `asOf` (default: today 00:00 UTC, so pass `asOf`
 * when the output must not change from one day to the next).
 *
 * Independence: each entity is generated from its own stream, keyed by (seed, kind, index), so
 * `person(i)` never needs persons 0..i-1 and any record can be regenerated alone; a loader can
 * stream a million persons without holding them. The world keeps in memory only the allocation
 * (a few numbers per company), a summary of each company generated so far and the school pool
 * (persons / 300 + 30 schools).
 *
 * Allocation: companies are ranked by a keyed permutation and weighted 1 / (rank + 3) (Zipf with
 * an offset: in a 1,000,000-person / 100,000-company world the largest employ over 30,000 and
 * several more than 10,000). The persons are dealt to companies by stratification: a keyed
 * permutation gives person i the slot k in [0, persons), and the cumulative weights cut the slots
 * into one contiguous run per company. So the exact number of current employees of every company
 * is known before any person is generated (staff_count is never below it), and a person's slot in
 * the run is their rank among the company's employees: in companies with 20+ world employees the
 * first ranks are the decision makers (rank 0 the chief executive).
 *
 * Uniqueness by construction: identifiers embed a keyed bijection of the index (Feistel networks),
 * never a retry set: person id (first 32 bits, variant 8/9), username (6-hex suffix), network_id,
 * network_urn (6 characters after "ACoAA"); company id (variant a/b), company_id, username
 * (5-character base-36 suffix). Hence at most 2^24 persons and 2^24 companies per world.
 */
import { IndexPermutation, Feistel, Rng, deriveKey, upperBound } from './random';
import { domainChoices, generateCompany, generateCompanySummary, generateSchool, type CompanyKeys, type CompanyResult } from './companies';
import { generatePerson, isNamesakeRank, type PersonKeys, type PersonResult } from './persons';
import { Stream, type CompanySummary, type School, type WorldContext } from './support';
import { COUNTRIES, type Country } from './tables';
import { defaultAsOf } from './asOf';

export type { CompanyResult } from './companies';
export type { PersonResult } from './persons';
export { INDUSTRIES, STAFF_RANGES, staffRangeFor } from './tables';

export interface WorldOptions {
  persons: number;
  companies: number;
  seed: number;
  asOf?: Date;
}

export interface World {
  readonly persons: number;
  readonly companies: number;
  readonly seed: number;
  readonly asOf: Date;
  /** Company record `index`, 0 <= index < companies. */
  company(index: number): CompanyResult;
  /** Person record `index`, 0 <= index < persons. */
  person(index: number): PersonResult;
  /** Every company record, in index order, generated one at a time. */
  companyRecords(): IterableIterator<CompanyResult>;
  /** Every person record, in index order, generated one at a time (never all held in memory). */
  personRecords(): IterableIterator<PersonResult>;
  /**
   * The index of the person with this username, or undefined: the suffix is inverted through its
   * keyed bijection (no table), and the candidate's username is checked (unless `verify` is false:
   * then the caller must compare the username of `person(index)` itself, saving one generation).
   */
  personIndexOf(username: string, verify?: boolean): number | undefined;
  /** The index of the company with this username or numeric company_id, or undefined. */
  companyIndexOf(ref: { username: string } | { companyId: string }): number | undefined;
  /**
   * Company `index` as the lake knew it before its rename (the same record under its former name),
   * or undefined if it was never renamed. `enrich seed` writes it before the current record, so the
   * lake's change log holds the rename (company.name_changed, diff.old_name).
   */
  formerCompany(index: number): CompanyResult | undefined;
  /** Whether person `index` shares their name with another employee of the same company (by construction). */
  isNamesake(index: number): boolean;
  /** What the generators see (company summaries, weighted draws), for the simulator's evolution. */
  readonly context: WorldContext;
}

/** Largest number of persons or companies in one world (identifier suffixes are 24-bit bijections). */
const MAX_WORLD_ENTITIES = 2 ** 24;

export { defaultAsOf };

export function createWorld(options: WorldOptions): World {
  return new SyntheticWorld(options);
}

// Purpose tags of the keyed streams and bijections (changing one changes the world).
enum Purpose {
  CompanyRank = 1, PersonSlot, CompanyCore, CompanyDetail, CompanyUuid, CompanyId, CompanySlug,
  Person, PersonUuid, PersonUsername, PersonNetworkId, PersonUrn, School, SchoolId, SchoolRank,
  // Added for matching (issue 33): new streams, so every earlier draw of the world is unchanged.
  PersonAlias, CompanyRename, Namesake,
}

/** Zipf offset of the company and school weights: weight of rank r is 1 / (r + offset). */
const COMPANY_OFFSET = 3;
const SCHOOL_OFFSET = 4;

function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_WORLD_ENTITIES) {
    throw new RangeError(`${name} must be an integer from 0 to ${MAX_WORLD_ENTITIES}, got ${value}`);
  }
  return value;
}

class SyntheticWorld implements World, WorldContext {
  readonly persons: number;
  readonly companies: number;
  readonly seed: number;
  readonly asOf: Date;
  readonly asOfMs: number;
  readonly asOfYear: number;
  readonly asOfMonth: number;

  /** companyAtRank[r]: the company with the r-th largest weight. */
  private readonly companyAtRank: Int32Array;
  /** Cumulative company weights by rank (for past employers). */
  private readonly companyWeights: Float64Array;
  /** Slot boundaries by rank: the current employees of rank r hold slots [bounds[r], bounds[r+1]). */
  private readonly bounds: Float64Array;
  private readonly employees: Int32Array;
  private readonly slotOfPerson: IndexPermutation | null;
  private readonly summaries: (CompanySummary | undefined)[];
  /** Summaries 0..domainsAssigned-1 are made and own their domains (companySummary). */
  private domainsAssigned = 0;
  private readonly takenDomains = new Set<string>();
  private readonly schools: School[] = [];
  private readonly schoolWeights: Float64Array;
  private readonly schoolsByCountry = new Map<Country, { schools: School[]; weights: Float64Array }>();

  private readonly coreStream = new Stream();
  private readonly detailStream = new Stream();
  private readonly personStream = new Stream();
  private readonly renameStream = new Stream();
  private readonly aliasRng = new Rng();
  private readonly namesakeStream = new Stream();
  private readonly namesakeKey: number;
  private readonly companyKeys: CompanyKeys;
  private readonly personKeys: PersonKeys;

  constructor(options: WorldOptions) {
    this.persons = checkCount('persons', options.persons);
    this.companies = checkCount('companies', options.companies);
    if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be a safe integer, got ${options.seed}`);
    if (this.persons > 0 && this.companies === 0) throw new RangeError('a world with persons needs at least one company');
    this.seed = options.seed;
    const asOf = options.asOf ?? defaultAsOf();
    if (Number.isNaN(asOf.getTime())) throw new RangeError('asOf must be a valid date');
    this.asOf = new Date(asOf.getTime());
    this.asOfMs = asOf.getTime();
    this.asOfYear = asOf.getUTCFullYear();
    this.asOfMonth = this.asOfYear * 12 + asOf.getUTCMonth();

    const key = (p: Purpose): number => deriveKey(this.seed, p);
    this.companyKeys = {
      core: key(Purpose.CompanyCore),
      detail: key(Purpose.CompanyDetail),
      uuid: new Feistel(32, key(Purpose.CompanyUuid)),
      companyId: new Feistel(28, key(Purpose.CompanyId)),
      slug: new Feistel(24, key(Purpose.CompanySlug)),
      rename: key(Purpose.CompanyRename),
    };
    this.namesakeKey = key(Purpose.Namesake);
    this.personKeys = {
      stream: key(Purpose.Person),
      uuid: new Feistel(32, key(Purpose.PersonUuid)),
      username: new Feistel(24, key(Purpose.PersonUsername)),
      networkId: new Feistel(32, key(Purpose.PersonNetworkId)),
      urn: new Feistel(32, key(Purpose.PersonUrn)),
      alias: key(Purpose.PersonAlias),
    };

    // Allocation of current employees (see the file comment).
    const m = this.companies;
    const rank = m > 0 ? new IndexPermutation(m, key(Purpose.CompanyRank)) : null;
    this.companyAtRank = new Int32Array(m);
    this.companyWeights = new Float64Array(m);
    this.bounds = new Float64Array(m + 1);
    this.employees = new Int32Array(m);
    let total = 0;
    for (let r = 0; r < m; r++) {
      this.companyAtRank[r] = (rank as IndexPermutation).apply(r);
      total += 1 / (r + COMPANY_OFFSET);
      this.companyWeights[r] = total;
    }
    for (let r = 0; r < m; r++) this.bounds[r + 1] = Math.round((this.persons * (this.companyWeights[r] as number)) / total);
    if (m > 0) this.bounds[m] = this.persons;
    for (let r = 0; r < m; r++) this.employees[this.companyAtRank[r] as number] = (this.bounds[r + 1] as number) - (this.bounds[r] as number);
    this.slotOfPerson = this.persons > 0 ? new IndexPermutation(this.persons, key(Purpose.PersonSlot)) : null;
    this.summaries = new Array<CompanySummary | undefined>(m);

    // The school pool, Zipf-weighted in a keyed order; equal names are one school.
    const schoolCount = Math.floor(this.persons / 300) + 30;
    const schoolStream = new Stream();
    const schoolKey = key(Purpose.School);
    const schoolIds = new Feistel(28, key(Purpose.SchoolId));
    const schoolRank = new IndexPermutation(schoolCount, key(Purpose.SchoolRank));
    const byName = new Map<string, School>();
    this.schoolWeights = new Float64Array(schoolCount);
    let schoolTotal = 0;
    const perCountry = new Map<Country, { schools: School[]; weights: number[] }>();
    for (let r = 0; r < schoolCount; r++) {
      const generated = generateSchool(this, schoolStream, schoolKey, schoolIds, schoolRank.apply(r));
      const school = byName.get(generated.name) ?? generated;
      byName.set(school.name, school);
      const w = 1 / (r + SCHOOL_OFFSET);
      this.schools.push(school);
      schoolTotal += w;
      this.schoolWeights[r] = schoolTotal;
      let list = perCountry.get(school.country);
      if (list === undefined) perCountry.set(school.country, (list = { schools: [], weights: [] }));
      list.schools.push(school);
      list.weights.push(((list.weights[list.weights.length - 1] ?? 0) as number) + w);
    }
    for (const [country, list] of perCountry) this.schoolsByCountry.set(country, { schools: list.schools, weights: Float64Array.from(list.weights) });
  }

  // WorldContext -------------------------------------------------------------------------------

  /**
   * Company `index`'s summary. Its domain is its own: a domain drawn by an earlier company (a lower
   * index) is not drawn again (companies.ts, domainChoices), so the summaries are made in index
   * order, the first call for a company making those before it (once; they are kept). The domains
   * of companies 0..i do not depend on the world's size: a small world's companies keep them in a
   * larger world of the same seed.
   */
  companySummary(index: number): CompanySummary {
    const done = this.summaries[index];
    if (done !== undefined && index < this.domainsAssigned) return done;
    this.check('company', index, this.companies);
    while (this.domainsAssigned <= index) {
      const i = this.domainsAssigned;
      const drawn = generateCompanySummary(this, this.coreStream, this.renameStream, this.companyKeys, i);
      let domain = drawn.domain;
      for (const choice of domainChoices(drawn)) {
        if (!this.takenDomains.has(choice)) {
          domain = choice;
          break;
        }
      }
      this.takenDomains.add(domain);
      this.summaries[i] = domain === drawn.domain ? drawn : { ...drawn, domain };
      this.domainsAssigned++;
    }
    return this.summaries[index] as CompanySummary;
  }

  employeesOf(index: number): number {
    return this.employees[index] as number;
  }

  placement(index: number): { company: number; rank: number; employees: number } {
    const slot = (this.slotOfPerson as IndexPermutation).apply(index);
    const r = upperBound(this.bounds, slot) - 1;
    const start = this.bounds[r] as number;
    return { company: this.companyAtRank[r] as number, rank: slot - start, employees: (this.bounds[r + 1] as number) - start };
  }

  randomCompany(rng: Rng): number {
    return this.companyAtRank[rng.weighted(this.companyWeights)] as number;
  }

  namesakeName(index: number): { first: string; last: string } {
    const country = this.companySummary(index).country;
    this.namesakeStream.rng.reset(this.namesakeKey, index);
    const f = this.namesakeStream.faker(country.locale);
    return { first: f.person.firstName(), last: f.person.lastName() };
  }

  randomSchool(rng: Rng, country: Country): School {
    const local = this.schoolsByCountry.get(country);
    if (local !== undefined && rng.chance(0.7)) return local.schools[rng.weighted(local.weights)] as School;
    return this.schools[rng.weighted(this.schoolWeights)] as School;
  }

  // World --------------------------------------------------------------------------------------

  company(index: number): CompanyResult {
    this.check('company', index, this.companies);
    return generateCompany(this, this.detailStream, this.companyKeys, index);
  }

  person(index: number): PersonResult {
    this.check('person', index, this.persons);
    return generatePerson(this, this.personStream, this.aliasRng, this.personKeys, index);
  }

  *companyRecords(): IterableIterator<CompanyResult> {
    for (let i = 0; i < this.companies; i++) yield this.company(i);
  }

  *personRecords(): IterableIterator<PersonResult> {
    for (let i = 0; i < this.persons; i++) yield this.person(i);
  }

  get context(): WorldContext {
    return this;
  }

  personIndexOf(username: string, verify = true): number | undefined {
    const match = /-([0-9a-f]{6})$/.exec(username.toLowerCase());
    if (!match) return undefined;
    const index = this.personKeys.username.invert(parseInt(match[1] as string, 16));
    if (index >= this.persons) return undefined;
    if (!verify) return index;
    return this.person(index).username === username.toLowerCase() ? index : undefined;
  }

  companyIndexOf(ref: { username: string } | { companyId: string }): number | undefined {
    let index: number;
    if ('companyId' in ref) {
      if (!/^[0-9]{1,12}$/.test(ref.companyId)) return undefined;
      const value = Number(ref.companyId) - 100_000;
      if (value < 0 || value >= 2 ** 28) return undefined;
      index = this.companyKeys.companyId.invert(value);
      if (index >= this.companies) return undefined;
      return this.companySummary(index).companyId === String(Number(ref.companyId)) ? index : undefined;
    }
    const match = /-([0-9a-z]{5})$/.exec(ref.username.toLowerCase());
    if (!match) return undefined;
    const value = parseInt(match[1] as string, 36);
    if (value >= 2 ** 24) return undefined;
    index = this.companyKeys.slug.invert(value);
    if (index >= this.companies) return undefined;
    return this.companySummary(index).username === ref.username.toLowerCase() ? index : undefined;
  }

  formerCompany(index: number): CompanyResult | undefined {
    const s = this.companySummary(index);
    if (s.formerName === null) return undefined;
    return { ...this.company(index), name: s.formerName };
  }

  isNamesake(index: number): boolean {
    const { rank, employees } = this.placement(index);
    return isNamesakeRank(rank, employees);
  }

  private check(kind: string, index: number, count: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`${kind} index ${index} is outside 0..${count - 1}`);
  }
}
