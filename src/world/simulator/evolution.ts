/**
 * How the synthetic world changes over simulated time, deterministically.
 *
 * Each person and company has its own stream of change events, keyed by (seed, kind, index) like
 * the world's own streams: a Poisson process whose rate is the sum of the configured per-day rates,
 * each event's kind drawn in proportion to its rate, its details (new employer, title, city...) drawn
 * from the same stream. The record at simulated time T is the world's record with every event up
 * to T applied in order. So the state at T is a pure function of (world, rates, T): the same on
 * every run, and a later T extends an earlier one (nothing is forgotten or re-drawn).
 *
 * Events start at the world's `asOf` (its "today"): the base records are the world at asOf.
 */
import { inferSeniority } from '../../domain/people/seniority';
import type { World } from '..';
import { Rng, deriveKey } from '../random';
import type { CompanySummary } from '../support';
import { COUNTRIES, FAMILIES, INDUSTRIES, INDUSTRY_WEIGHTS, titlesFor, type Country, type JobFamily } from '../tables';
import type { CompanyResult } from '../companies';
import type { PersonResult } from '../persons';
import { cumulate } from '../random';

/** Expected events per entity per simulated day. */
export interface EvolutionRates {
  /** A person moves to another company of the world. */
  job: number;
  /** A person's title changes at the same employer. */
  title: number;
  /** A person's city (and maybe country) changes. */
  location: number;
  headcount: number;
  name: number;
  hq: number;
  industry: number;
}

/** Roughly what a professional network sees: a job change every few years, headcounts monthly. */
export const DEFAULT_RATES: EvolutionRates = {
  job: 1 / 1000,
  title: 1 / 1500,
  location: 1 / 3000,
  headcount: 1 / 30,
  name: 1 / 5000,
  hq: 1 / 5000,
  industry: 1 / 5000,
};

const DAY_MS = 86_400_000;
const PERSON_EVENTS = ['job', 'title', 'location'] as const;
const COMPANY_EVENTS = ['headcount', 'name', 'hq', 'industry'] as const;
// Purpose tags of the evolution streams (the world's own tags are below 100).
const PERSON_PURPOSE = 101;
const COMPANY_PURPOSE = 102;

const REBRAND_SUFFIXES = ['Group', 'Holdings', 'Technologies', 'Global', 'Labs', 'Partners', 'Solutions', 'International'];
const COUNTRY_CUMULATIVE = cumulate(COUNTRIES.map((c) => c.weight));
const INDUSTRY_CUMULATIVE = cumulate(INDUSTRY_WEIGHTS);
const TIER_OF: Record<string, number> = { manager: 1, director: 2, vp: 3, 'c-level': 4 };

type Position = PersonResult['positions'][number];

interface CompanyState {
  name: string;
  staff: number | null;
  hq: { country: Country; cityName: string; region: string | null } | null;
  industries: string[] | null;
}

const monthIndex = (ms: number) => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

function place(city: string, region: string | null, country: string): string {
  return region === null || region === city ? `${city}, ${country}` : `${city}, ${region}, ${country}`;
}

function familyOf(title: string | null): JobFamily | undefined {
  if (!title) return undefined;
  return FAMILIES.find((f) => f.ic.includes(title) || f.manager.includes(title) || f.director.includes(title) || f.vp.includes(title) || f.cLevel.includes(title));
}

/** A title of `family` at `tier` other than `current`. */
function titleAt(rng: Rng, family: JobFamily, tier: number, current: string | null): string {
  const list = titlesFor(family, tier);
  let title = rng.pick(list);
  if (title === current) title = list[(list.indexOf(title) + 1) % list.length] as string;
  return title === current ? `Senior ${title}` : title;
}

export class Evolution {
  private readonly rng = new Rng();
  private readonly personKey: number;
  private readonly companyKey: number;
  private readonly epochMs: number;
  private readonly personRate: number;
  private readonly companyRate: number;
  private readonly personWeights: Float64Array;
  private readonly companyWeights: Float64Array;

  constructor(
    private readonly world: World,
    readonly rates: EvolutionRates,
  ) {
    this.personKey = deriveKey(world.seed, PERSON_PURPOSE);
    this.companyKey = deriveKey(world.seed, COMPANY_PURPOSE);
    this.epochMs = world.asOf.getTime();
    this.personWeights = cumulate(PERSON_EVENTS.map((e) => Math.max(0, rates[e])));
    this.companyWeights = cumulate(COMPANY_EVENTS.map((e) => Math.max(0, rates[e])));
    this.personRate = this.personWeights[this.personWeights.length - 1] as number;
    this.companyRate = this.companyWeights[this.companyWeights.length - 1] as number;
  }

  /**
   * Walks the entity's events up to `untilMs`, handing each to `apply` with its time. `apply` draws
   * the event's details from `rng`, which is positioned in the entity's own stream.
   */
  private walk(key: number, index: number, rate: number, weights: Float64Array, untilMs: number, apply: (kind: number, atMs: number, rng: Rng) => void): void {
    if (rate <= 0 || untilMs <= this.epochMs) return;
    const rng = this.rng;
    rng.reset(key, index);
    let t = this.epochMs;
    for (;;) {
      t += (-Math.log(1 - rng.next()) / rate) * DAY_MS;
      if (t > untilMs) return;
      apply(rng.weighted(weights), t, rng);
    }
  }

  /** The company's changing fields at `atMs` (name, staff count, headquarters, industries). */
  private companyState(index: number, atMs: number): CompanyState {
    const base = this.world.context.companySummary(index);
    const state: CompanyState = { name: base.name, staff: base.staffCount, hq: null, industries: null };
    this.walk(this.companyKey, index, this.companyRate, this.companyWeights, atMs, (kind, _t, rng) => {
      switch (COMPANY_EVENTS[kind]) {
        case 'headcount': {
          const staff = state.staff ?? 1;
          let next = Math.max(1, Math.round(staff * (1 + (rng.next() * 0.2 - 0.08))));
          if (next === staff) next = staff + 1;
          state.staff = next;
          break;
        }
        case 'name': {
          const stem = base.name.split(' ').slice(0, -1).join(' ') || base.name;
          let name = `${stem} ${rng.pick(REBRAND_SUFFIXES)}`;
          if (name === state.name) name = `${name} Co`;
          state.name = name;
          break;
        }
        case 'hq': {
          const country = COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country;
          let city = rng.pick(country.cities);
          const current = state.hq ? state.hq.cityName : base.city.name;
          if (city.name === current) city = country.cities[(country.cities.indexOf(city) + 1) % country.cities.length]!;
          if (city.name === current) break;
          state.hq = { country, cityName: city.name, region: city.region };
          break;
        }
        case 'industry': {
          const current = state.industries ?? [...base.industries];
          let industry: string = INDUSTRIES[rng.weighted(INDUSTRY_CUMULATIVE)] as string;
          if (current.includes(industry)) industry = INDUSTRIES[(INDUSTRIES.indexOf(industry as never) + 1) % INDUSTRIES.length] as string;
          // Either a change of main industry or one more industry listed.
          state.industries = rng.chance(0.5) || current.length > 1 ? [industry] : [...current, industry];
          break;
        }
      }
    });
    return state;
  }

  /** Company `index` as the live source sees it at `atMs`. */
  companyAt(index: number, atMs: number): CompanyResult {
    const record = this.world.company(index);
    const state = this.companyState(index, atMs);
    record.name = state.name;
    record.staff_count = state.staff;
    if (state.hq) {
      const { country, cityName, region } = state.hq;
      record.hq_city = cityName;
      record.hq_country = country.name;
      record.hq_country_code = country.code;
      record.hq_geographic_area = region;
      for (const location of record.locations) {
        if (!location.isHeadquarter) continue;
        location.city = cityName;
        location.country = country.code;
        location.countryCode = country.code;
        location.geographicArea = region;
      }
    }
    if (state.industries) record.industries = state.industries;
    return record;
  }

  /** Company names at `atMs` by numeric company ID, for the positions of a person. */
  private companyNameAt(companyId: string | null, atMs: number): string | undefined {
    if (!companyId || this.companyRate <= 0) return undefined;
    const index = this.world.companyIndexOf({ companyId });
    return index === undefined ? undefined : this.companyState(index, atMs).name;
  }

  /** Person `index` as the live source sees it at `atMs`. */
  personAt(index: number, atMs: number): PersonResult {
    return this.evolvePerson(this.world.person(index), index, atMs);
  }

  /** Applies the person's events up to `atMs` to their base record (which it changes and returns). */
  evolvePerson(p: PersonResult, index: number, atMs: number): PersonResult {
    const ctx = this.world.context;
    let changed = false;
    this.walk(this.personKey, index, this.personRate, this.personWeights, atMs, (kind, t, rng) => {
      changed = true;
      const current = p.positions.find((x) => x.isCurrent);
      const oldTitle = p.current_title;
      const oldCompany = p.current_company;
      switch (PERSON_EVENTS[kind]) {
        case 'job': {
          let summary: CompanySummary | undefined;
          for (let attempt = 0; attempt < 4 && !summary; attempt++) {
            const candidate = ctx.companySummary(ctx.randomCompany(rng));
            if (candidate.companyId !== p.current_company_id) summary = candidate;
          }
          const family = familyOf(oldTitle) ?? (FAMILIES[rng.int(FAMILIES.length)] as JobFamily);
          const tier = Math.min(4, (TIER_OF[p.seniority ?? ''] ?? 0) + (rng.chance(0.35) ? 1 : 0));
          const title = titleAt(rng, family, tier, oldTitle);
          if (!summary) break;
          const m = monthIndex(t);
          if (current) {
            current.isCurrent = false;
            current.endYear = Math.floor(m / 12);
            current.endMonth = (m % 12) + 1;
          }
          const position: Position = {
            title,
            companyName: summary.name,
            companyId: summary.companyId,
            companyUsername: summary.username,
            companyIndustry: summary.industry,
            location: current?.location ?? place(p.geo_city ?? summary.city.name, null, p.geo_country ?? summary.country.name),
            companyURL: summary.networkUrl,
            companyLogo: summary.logoUrl,
            companyStaffCountRange: summary.staffRange,
            locationType: null,
            employmentType: 'Full-time',
            isCurrent: true,
            startYear: Math.floor(m / 12),
            startMonth: (m % 12) + 1,
            endYear: null,
            endMonth: null,
            description: null,
          };
          p.positions = [position, ...p.positions];
          if (oldCompany && !p.past_companies.includes(oldCompany)) p.past_companies = [oldCompany, ...p.past_companies];
          p.current_company = summary.name;
          p.current_company_id = summary.companyId;
          p.current_company_username = summary.username;
          p.current_company_industry = summary.industry;
          p.current_company_staff_range = summary.staffRange;
          this.retitle(p, title, oldTitle, oldCompany);
          break;
        }
        case 'title': {
          const family = familyOf(oldTitle) ?? (FAMILIES[rng.int(FAMILIES.length)] as JobFamily);
          const tier = Math.min(4, (TIER_OF[p.seniority ?? ''] ?? 0) + (rng.chance(0.5) ? 1 : 0));
          const title = titleAt(rng, family, tier, oldTitle);
          if (current) current.title = title;
          this.retitle(p, title, oldTitle, oldCompany);
          break;
        }
        case 'location': {
          const country = rng.chance(0.7) && p.geo_country_code
            ? (COUNTRIES.find((c) => c.code === p.geo_country_code) ?? (COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country))
            : (COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country);
          let city = rng.pick(country.cities);
          if (city.name === p.geo_city) city = country.cities[(country.cities.indexOf(city) + 1) % country.cities.length]!;
          p.geo_city = city.name;
          p.geo_country = country.name;
          p.geo_country_code = country.code;
          if (current) current.location = place(city.name, city.region, country.name);
          break;
        }
      }
    });
    // Employers renamed since the base record carry their new name on the profile too (the
    // company ID stays, so this is never a job change).
    if (this.rates.name > 0) {
      for (const position of p.positions) {
        const name = this.companyNameAt(position.companyId, atMs);
        if (name !== undefined && name !== position.companyName) {
          if (position.isCurrent && p.current_company === position.companyName) p.current_company = name;
          position.companyName = name;
          changed = true;
        }
      }
    }
    if (changed) {
      p.positions_count = p.positions.length;
    }
    return p;
  }

  private retitle(p: PersonResult, title: string, oldTitle: string | null, oldCompany: string | null): void {
    p.current_title = title;
    p.seniority = inferSeniority(title) as PersonResult['seniority'];
    if (p.headline && oldTitle && p.headline.startsWith(`${oldTitle} at ${oldCompany}`)) {
      p.headline = `${title} at ${p.current_company}${p.headline.slice(`${oldTitle} at ${oldCompany}`.length)}`;
    }
  }
}
