/**
 * Company and school generators. A company is generated in two parts from two streams of its own:
 * the summary (name, identifiers, industry, headcount, headquarters city), which persons' positions
 * copy and the world keeps in memory, and the rest of the full record.
 */
import type { components } from '../../generated/types';

import { Feistel, type Rng } from './random';
import {
  CALL_TO_ACTIONS, COMPANY_SUFFIXES, COMPANY_TYPES, COUNTRIES, HQ_LABELS, INDUSTRIES, INDUSTRY_WEIGHTS, OFFICE_LABELS,
  SCHOOL_PATTERNS, SPECIALITIES, staffRangeFor, type Country, type Industry,
} from './tables';
import {
  capitalize, fillPattern, isoSeconds, mediaUrl, renditions, slugify, uuidFrom, type CompanySummary, type School, type Stream, type WorldContext,
} from './support';
import { cumulate } from './random';
import { ALL_LEGAL_SUFFIXES, LEGAL_SUFFIXES } from './names';

/** The name without a trailing legal form of names.ts ("Acme Software Inc." -> "Acme Software"). */
export function withoutLegalForm(name: string): string {
  for (const suffix of ALL_LEGAL_SUFFIXES) if (name.endsWith(` ${suffix}`)) return name.slice(0, -suffix.length - 1);
  return name;
}

export type CompanyResult = components['schemas']['CompanyResult'];
type Location = components['schemas']['Location'];

const INDUSTRY_CUMULATIVE = cumulate(INDUSTRY_WEIGHTS);
export const COUNTRY_CUMULATIVE = cumulate(COUNTRIES.map((c) => c.weight));

const DAY_MS = 86_400_000;
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Keyed bijections that turn a company index into its unique identifiers. */
export interface CompanyKeys {
  readonly core: number;
  readonly detail: number;
  readonly uuid: Feistel; // 32 bits
  readonly companyId: Feistel; // 28 bits
  readonly slug: Feistel; // 24 bits
  /** Key of the renames and legal forms (a stream apart, so the rest of the world is unchanged). */
  readonly rename: number;
}

function base36(value: number, digits: number): string {
  let s = '';
  for (let k = 0; k < digits; k++) {
    s = BASE36[value % 36] + s;
    value = Math.floor(value / 36);
  }
  return s;
}

/** A company name; `branded` when it is a stem and an industry word (a legal form may follow). */
function companyName(stream: Stream, industry: number, country: Country): { name: string; branded: boolean } {
  const { rng } = stream;
  const f = stream.faker(country.locale);
  const city = rng.pick(country.cities).name;
  if (industry === 4 && rng.chance(0.4)) return { name: rng.chance(0.5) ? `University of ${city}` : `${city} College`, branded: false };
  if (industry === 5 && rng.chance(0.3)) return { name: `${f.person.lastName()} & ${f.person.lastName()}`, branded: true };
  if (industry === 8 && rng.chance(0.2)) return { name: `Bank of ${city}`, branded: false };
  const stem = rng.chance(0.55) ? f.person.lastName() : capitalize(stream.faker().word.noun());
  return { name: `${stem} ${rng.pick(COMPANY_SUFFIXES[industry] as readonly string[])}`, branded: true };
}

/** Share of companies renamed, and of branded names written with their legal form. */
const RENAMED = 0.05;
const WITH_LEGAL_FORM = 0.25;

/**
 * The company's legal form and former name, from the stream `extra` keyed apart (keys.rename), so
 * adding them changed no other draw of the world. A former name is half the time the same stem
 * with another industry word ("Smith Advisory" -> "Smith Consulting"), half an unrelated name (a
 * rebrand). The rename happened 2 to 72 months before asOf.
 */
function renameAndLegalForm(
  ctx: WorldContext, extra: Stream, key: number, index: number, industry: number, country: Country, base: { name: string; branded: boolean },
): { name: string; formerName: string | null; renamedMonth: number | null } {
  const { rng } = extra;
  rng.reset(key, index);
  const legal = base.branded && rng.chance(WITH_LEGAL_FORM) ? rng.pick(LEGAL_SUFFIXES[country.code] ?? LEGAL_SUFFIXES.US!) : null;
  const name = legal === null ? base.name : `${base.name} ${legal}`;
  if (!rng.chance(RENAMED)) return { name, formerName: null, renamedMonth: null };
  const words = COMPANY_SUFFIXES[industry] as readonly string[];
  let former: string;
  if (base.branded && rng.chance(0.5)) {
    const current = words.find((w) => base.name.endsWith(` ${w}`)) ?? '';
    const stem = current === '' ? base.name : base.name.slice(0, -current.length - 1);
    const others = words.filter((w) => w !== current);
    former = `${stem} ${rng.pick(others.length ? others : ['Group'])}`;
  } else {
    const stem = rng.chance(0.5) ? extra.faker(country.locale).person.lastName() : capitalize(extra.faker().word.noun());
    former = `${stem} ${rng.pick(words)}`;
  }
  if (legal !== null && rng.chance(0.5)) former = `${former} ${legal}`;
  if (former === name) former = `${former} Group`;
  return { name, formerName: former, renamedMonth: ctx.asOfMonth - rng.range(2, 72) };
}

/** The summary of company `index`: everything a person's position copies from its employer. */
export function generateCompanySummary(ctx: WorldContext, stream: Stream, extra: Stream, keys: CompanyKeys, index: number): CompanySummary {
  const { rng } = stream;
  rng.reset(keys.core, index);
  const industryIndex = rng.weighted(INDUSTRY_CUMULATIVE);
  const industry = INDUSTRIES[industryIndex] as Industry;
  const country = COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country;
  const city = rng.pick(country.cities);
  const base = companyName(stream, industryIndex, country);
  // The page's username and the website's domain come from the name without its legal form.
  const stem = slugify(base.name).slice(0, 60).replace(/-+$/, '') || 'company';
  const { name, formerName, renamedMonth } = renameAndLegalForm(ctx, extra, keys.rename, index, industryIndex, country, base);
  const username = `${stem}-${base36(keys.slug.apply(index), 5)}`;
  const employees = ctx.employeesOf(index);
  // The page's headcount is at least the world's current employees (the data lake holds a share of them).
  const staffCount = Math.max(rng.logInt(1, 400), Math.ceil(employees * (1.1 + 1.4 * rng.next())));
  const industries: Industry[] = [industry];
  if (rng.chance(0.25)) {
    const extra = INDUSTRIES[rng.weighted(INDUSTRY_CUMULATIVE)] as Industry;
    if (extra !== industry) industries.push(extra);
  }
  const age = staffCount > 5000 ? rng.range(12, 150) : staffCount > 500 ? rng.range(5, 90) : rng.logInt(1, 60);
  const foundedYear = rng.chance(0.04) ? null : ctx.asOfYear - age;
  const logoUrl = rng.chance(0.88) ? mediaUrl(rng, 'company-logo_200_200', ctx.asOfMs - rng.range(30, 3000) * DAY_MS - rng.int(DAY_MS)) : null;
  return {
    index, name, username,
    companyId: String(100_000 + keys.companyId.apply(index)),
    networkUrl: `https://www.linkedin.com/company/${username}/`,
    industry, industryIndex, industries, staffCount,
    staffRange: staffRangeFor(staffCount).label,
    logoUrl, country, city, foundedYear,
    domain: `${stem}.${rng.chance(0.7) ? 'com' : country.tld}`,
    formerName, renamedMonth,
  };
}

/**
 * The domains a company may register, in the order it tries them: the one its summary drew (its
 * name's stem at .com or its country's top-level domain), then the other of the two, then the stem
 * with its city, with "hq", "get" and "group", then with a number. A domain has one owner: when two
 * companies share a name (many do: a surname and an industry word), the later one (by index) takes
 * the first of these that no earlier company holds (World.companySummary), as real companies with a
 * taken name do ("smith-consulting-austin.com", "getsmithconsulting.com").
 */
export function* domainChoices(s: Pick<CompanySummary, 'domain' | 'country' | 'city'>): Generator<string> {
  const drawn = s.domain;
  const dot = drawn.indexOf('.');
  const stem = drawn.slice(0, dot);
  const tld = drawn.slice(dot + 1);
  yield drawn;
  const other = tld === 'com' ? s.country.tld : 'com';
  if (other !== tld) yield `${stem}.${other}`;
  const city = slugify(s.city.name) || 'hq';
  for (const variant of [`${stem}-${city}`, `${stem}hq`, `get${stem}`, `${stem}-group`]) {
    yield `${variant}.${tld}`;
    if (other !== tld) yield `${variant}.${other}`;
  }
  for (let n = 2; ; n++) yield `${stem}${n}.${tld}`;
}

function address(stream: Stream, country: Country): string {
  return `${stream.rng.range(1, 999)} ${stream.faker(country.locale).location.street()}`;
}

function label(rng: Rng, labels: readonly string[], city: string): string {
  return rng.pick(labels).replace('{city}', city);
}

/** The full company record of company `index`. */
export function generateCompany(ctx: WorldContext, stream: Stream, keys: CompanyKeys, index: number): CompanyResult {
  const s = ctx.companySummary(index); // before reset: it may use the same kind of stream
  const { rng } = stream;
  rng.reset(keys.detail, index);
  const id = uuidFrom(rng, keys.uuid.apply(index), 0xa + rng.int(2));
  const f = stream.faker();
  const large = s.staffCount > 1000;

  const hqLine1 = address(stream, s.country);
  const hqLine2 = rng.chance(0.3) ? rng.pick(['Suite ', 'Floor ', 'Unit ']) + String(rng.range(1, 40) * (rng.chance(0.5) ? 100 : 1)) : null;
  const hqPostal = fillPattern(rng, s.country.postal);
  const hqDescription = rng.chance(0.45) ? label(rng, HQ_LABELS, s.city.name) : null;
  const locations: Location[] = [
    {
      city: s.city.name, description: hqDescription, line1: hqLine1, line2: hqLine2, country: s.country.code,
      countryCode: s.country.code, postalCode: hqPostal, geographicArea: s.city.region, isHeadquarter: true,
    },
  ];
  const offices = s.staffCount < 50 ? rng.int(2) * rng.int(2) : s.staffCount <= 1000 ? rng.int(3) : s.staffCount <= 5000 ? rng.range(1, 4) : rng.range(3, 8);
  for (let k = 0; k < offices; k++) {
    const country = rng.chance(0.5) ? s.country : (COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country);
    const city = rng.pick(country.cities);
    if (city === s.city || locations.some((l) => l.city === city.name)) continue;
    const full = rng.chance(0.7);
    locations.push({
      city: city.name,
      description: rng.chance(0.5) ? label(rng, OFFICE_LABELS, city.name) : null,
      line1: full ? address(stream, country) : null,
      line2: null,
      country: country.code,
      countryCode: rng.chance(0.95) ? country.code : null,
      postalCode: full ? fillPattern(rng, country.postal) : null,
      geographicArea: full ? city.region : null,
      isHeadquarter: false,
    });
  }

  const website = rng.chance(0.92) ? `https://www.${s.domain}` : null;
  const cta = website !== null && rng.chance(0.6) ? rng.pick(CALL_TO_ACTIONS) : null;
  const callToAction = cta === null ? null : {
    type: cta.type,
    url: website + cta.path,
    displayText: cta.displayText,
    visible: rng.chance(0.92),
    callToActionMessage: rng.chance(0.1) ? { textDirection: 'USER_LOCALE', text: `Talk to the ${s.name} team` } : null,
  };
  const verificationKnown = rng.chance(0.92);
  const verified = verificationKnown && rng.chance(large ? 0.6 : 0.2);
  const pageVerification = verificationKnown
    ? { verified, lastModifiedAt: verified ? ctx.asOfMs - rng.range(20, 1500) * DAY_MS - rng.int(DAY_MS) : 0 }
    : null;

  const specialityPool = SPECIALITIES[s.industryIndex] as readonly string[];
  const specialities = specialityPool.filter(() => rng.chance(0.45));
  const type = s.industry === 'Higher Education' ? (rng.chance(0.7) ? 'Educational' : 'Nonprofit')
    : large && rng.chance(0.55) ? 'Public Company'
    : rng.chance(0.8) ? 'Privately Held' : rng.pick(COMPANY_TYPES);
  const founded = s.foundedYear === null ? '' : ` Founded in ${s.city.name} in ${s.foundedYear},`;
  const description = rng.chance(0.9)
    ? `${s.name} is ${/^[aeiou]/i.test(s.industry) ? 'an' : 'a'} ${s.industry.toLowerCase()} company that helps organizations ${f.company.buzzPhrase()}.${founded === '' ? '' : founded + ` we serve customers from ${locations.length === 1 ? `our office in ${s.city.name}` : `${locations.length} offices`}.`} Our focus: ${specialities.slice(0, 3).join(', ') || s.industry}.`
    : null;
  const affiliated = rng.chance(large ? 0.5 : 0.15)
    ? Array.from({ length: rng.range(1, 3) }, (_, k) => {
        // A showcase page is named after the brand, without the legal form ("Acme Labs", not "Acme Inc. Labs").
        const brand = withoutLegalForm(s.name);
        const name = `${brand} ${rng.pick(['Careers', 'Labs', 'Europe', 'Foundation', 'Ventures', 'Academy', 'Engineering'])}`;
        const slug = `${s.username}-${slugify(name.slice(brand.length + 1))}`;
        const showcase = rng.chance(0.6);
        return {
          id: String(80_000_000 + ((keys.companyId.apply(index) * 7 + k) % 19_000_000)),
          name,
          universalName: slug,
          networkURL: `https://www.linkedin.com/${showcase ? 'showcase' : 'company'}/${slug}/`,
          logo: rng.chance(0.4) ? null : rng.chance(0.5) ? mediaUrl(rng, 'company-logo_200_200', ctx.asOfMs - rng.range(30, 2000) * DAY_MS)
            : renditions(rng, (w, h) => `company-logo_${w}_${h}`, [[200, 200], [100, 100]], ctx.asOfMs - rng.range(30, 2000) * DAY_MS),
        };
      })
    : null;
  const followers = rng.chance(0.97) ? Math.round(s.staffCount * (2 + rng.next() * 40) + rng.int(500)) : null;

  return {
    id,
    company_id: s.companyId,
    name: s.name,
    tagline: rng.chance(0.6) ? capitalize(f.company.catchPhrase().toLowerCase()) : null,
    description,
    website,
    company_type: rng.chance(0.95) ? type : null,
    network_url: s.networkUrl,
    founded_year: s.foundedYear,
    staff_count: s.staffCount,
    follower_count: followers,
    hq_city: s.city.name,
    hq_country: s.country.name,
    hq_country_code: s.country.code,
    hq_geographic_area: s.city.region,
    hq_postal_code: hqPostal,
    hq_line1: hqLine1,
    hq_line2: hqLine2,
    hq_description: hqDescription,
    phone: rng.chance(0.5) ? `${s.country.phone} ${fillPattern(rng, '###-###-####')}` : null,
    is_verified: pageVerification === null ? null : pageVerification.verified,
    page_verification: pageVerification,
    industries: [...s.industries],
    specialities,
    locations,
    logo_url: s.logoUrl,
    cover_image_url: rng.chance(0.6) ? mediaUrl(rng, 'image-scale_191_1128', ctx.asOfMs - rng.range(30, 2000) * DAY_MS) : null,
    username: s.username,
    crunchbase_url: rng.chance(s.industryIndex <= 2 ? 0.5 : 0.25) ? `https://www.crunchbase.com/organization/${s.username}` : null,
    call_to_action_url: callToAction === null ? null : callToAction.url,
    call_to_action: callToAction,
    is_claimable: verified ? false : rng.chance(0.3) ? null : rng.chance(0.15),
    affiliated_pages: affiliated,
    featured_customers: rng.chance(0.03) ? [{ name: stream.faker().company.name() }] : null,
    fetched_at: isoSeconds(ctx.asOfMs - rng.int(30 * 86_400 + 1) * 1000),
  };
}

/** School `index` of the shared pool: name, page identifiers and logo. */
export function generateSchool(ctx: WorldContext, stream: Stream, key: number, idKey: Feistel, index: number): School {
  const { rng } = stream;
  rng.reset(key, index);
  const country = COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country;
  const city = rng.pick(country.cities);
  const patterns = SCHOOL_PATTERNS[country.code] as (typeof SCHOOL_PATTERNS)[string];
  const name = rng.pick(rng.chance(0.3) ? patterns.place : patterns.named)
    .replace('{city}', city.name)
    .replace('{region}', city.region ?? city.name)
    .replace('{surname}', stream.faker(country.locale).person.lastName());
  const hasPage = rng.chance(0.92);
  const slug = slugify(name);
  const ts = ctx.asOfMs - rng.range(100, 3000) * DAY_MS - rng.int(DAY_MS);
  return {
    index,
    name,
    schoolId: hasPage ? String(1000 + idKey.apply(index)) : null,
    url: hasPage ? `https://www.linkedin.com/school/${slug}/` : null,
    logo: !hasPage || rng.chance(0.25) ? null
      : rng.chance(0.65) ? mediaUrl(rng, 'company-logo_200_200', ts)
      : renditions(rng, (w, h) => `company-logo_${w}_${h}`, [[200, 200], [100, 100]], ts),
    country,
  };
}
