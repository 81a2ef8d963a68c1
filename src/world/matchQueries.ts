/**
 * Labelled match queries made from the world (issue 33, "How well, measured"): the rows a CRM
 * export or a sales list holds, with the noise such lists carry, each labelled with the record it
 * was made from (or null for a person the lake does not hold). Shared by the fitting of the match
 * calibration (src/domain/match/calibrate.ts) and `npm run bench:match`.
 *
 * Seeded and reproducible: query k of noise class c is drawn from its own stream keyed by
 * (seed, c, k), so the same (world, seed, count, mix) gives the same queries, and a mix that
 * changes the weight of one class leaves the queries of the others as they were (bar their number).
 * A class that needs a property of the person (a nickname table entry, a renamed employer, a past
 * employer, a school, a namesake) samples persons until one has it (bounded; a query that finds
 * none is dropped, so the count can fall short only in tiny worlds).
 *
 * The truth comes from the generator (world.person(i), world.formerCompany, world.isNamesake), never
 * from the lake or the engine; the noise tables (nicknames, legal forms, abbreviations) are the
 * world's own (names.ts), not the engine's.
 */
import { Rng, deriveKey } from './random';
import { Stream } from './support';
import { COUNTRIES, type Country } from './tables';
import { FORMAL_OF, LEGAL_SUFFIXES, MIDDLE_NAMES, NICKNAMES } from './names';
import { withoutLegalForm } from './companies';
import type { components } from '../../generated/types';
import type { CompanyResult, PersonResult, World } from '.';

/** The body of POST /person/match, as the contract types it. */
export type PersonMatchQuery = components['schemas']['PersonMatchRequest'];

/** The body of POST /company/match, as the contract types it. */
export type CompanyMatchQuery = components['schemas']['CompanyMatchRequest'];

export interface LabelledQuery<Q> {
  query: Q;
  /** The id of the record the query was made from; null: nobody in the lake (an absent person or company). */
  expectedId: string | null;
  /** The noise class (PERSON_NOISE / COMPANY_NOISE). */
  noise: string;
  /** The class the query was made as, when it was relabelled ambiguous (labelAmbiguousPersons). */
  madeAs?: string;
  /** The world's index of the person the query was made from (person queries with a record). */
  index?: number;
}

/**
 * Person noise classes. The group says which inputs the query carries, as the aims are
 * set: name plus company, domain or work email; name plus location or school; email alone;
 * absent; ambiguous (two people fit the query as asked).
 */
export const PERSON_NOISE = {
  exact: 'company', // the record's name and current company, as written
  case_accents: 'company', // letter case changed, accents dropped
  nickname: 'company', // Robert on the profile, Bob in the list (or the reverse)
  typo: 'company', // one or two typos in the name
  swapped_name: 'company', // last name first
  middle_name: 'company', // a middle name or initial added, or the profile's dropped
  company_legal_suffix: 'company', // the company with a legal form added, dropped or changed, or abbreviated
  former_company: 'company', // the current employer under its name before a rename
  previous_employer: 'company', // a past employer (lists go stale)
  title_variant: 'company', // name, company and the title abbreviated or reworded
  company_domain: 'company', // name and the company's website or bare domain
  email_first_last: 'email', // jane.doe@ at the company's domain, nothing else
  email_initial_last: 'email', // jdoe@ at the company's domain, nothing else
  email_first: 'company', // jane@ at the company's domain, with the name
  location_city: 'location', // name and the city (not the country)
  school: 'location', // name and a school attended
  ambiguous_namesake: 'ambiguous', // name and company, where the company has two people of that name
  // Not drawn: a query of another class (its name in `madeAs`) that another loaded person fits as
  // well as the one it was made from (labelAmbiguousPersons): a chance namesake at the employer, the
  // nickname's other bearer, a `jdoe@` that fits two Does. Nothing in the query tells them apart.
  ambiguous_rival: 'ambiguous',
  absent: 'absent', // a name the lake does not hold, at a real company (or by a work email)
  absent_unloaded: 'absent', // a person of the world the lake was not given (when loadedPersons < persons)
} as const;
export type PersonNoise = keyof typeof PERSON_NOISE;
export type QueryGroup = (typeof PERSON_NOISE)[PersonNoise];

/** The default mix: every class, the plain ones weighted as lists hold them. */
export const DEFAULT_PERSON_MIX: Readonly<Record<PersonNoise, number>> = {
  exact: 2, case_accents: 1, nickname: 1, typo: 1.5, swapped_name: 0.7, middle_name: 1, company_legal_suffix: 1.5,
  former_company: 0.5, previous_employer: 0.8, title_variant: 1, company_domain: 1, email_first_last: 1,
  email_initial_last: 0.7, email_first: 0.5, location_city: 1, school: 0.7, ambiguous_namesake: 0.6, absent: 2, absent_unloaded: 0.5, ambiguous_rival: 0,
};

export const COMPANY_NOISE = {
  exact_name: 'name',
  legal_suffix: 'name', // a legal form added, dropped or changed
  case_punctuation: 'name', // ACME CORP. / acme corp
  abbreviation: 'name', // Technologies -> Tech, International -> Intl, & -> and
  former_name: 'name', // the name before a rename
  name_location: 'name', // name and the headquarters city
  domain: 'domain', // bare domain
  website_url: 'domain', // https://www.acme.com/about
  email_domain: 'domain', // someone@acme.com
  absent: 'absent', // a company the lake does not hold
  // Not drawn: a name query of the classes above that another company of the world fits as well (the
  // same name once legal form, case and punctuation are dropped, and for name_location in the same
  // city; for former_name, a company named so now or before). Nothing in the query tells the two
  // apart, so no answer can be claimed as right: it is labelled so, not counted as a miss.
  ambiguous_name: 'ambiguous',
} as const;
export type CompanyNoise = keyof typeof COMPANY_NOISE;

export const DEFAULT_COMPANY_MIX: Readonly<Record<CompanyNoise, number>> = {
  exact_name: 2, legal_suffix: 1.5, case_punctuation: 1, abbreviation: 1, former_name: 0.7, name_location: 1,
  domain: 1.5, website_url: 1, email_domain: 1, absent: 1.5, ambiguous_name: 0,
};

export interface MatchQueryOptions {
  seed: number;
  count: number;
  /** Weights by class name; classes left out get none. Default: DEFAULT_PERSON_MIX / DEFAULT_COMPANY_MIX. */
  mix?: Readonly<Record<string, number>>;
  /** The lake holds persons 0..loadedPersons-1 of the world (seedLake's loadPersons); default all. */
  loadedPersons?: number;
  /**
   * Whether a name key (nameKey(first_name, last_name): no middle name, nicknames folded, accents
   * and case dropped) is worn by someone in the lake: an absent person whose name is then drawn
   * again (made up) or skipped (an unloaded person of the world: "Robert Smith" is not absent when
   * the lake has a "Bob M. Smith"). Without it, made-up names pair a first and a last name of two
   * different locales, which rarely exist.
   */
  isTakenName?: (nameKey: string) => boolean;
}

/** "typo=2,absent=1" (the bench's --mix) -> weights; unknown class names are an error. */
export function parseMix(text: string, classes: readonly string[]): Record<string, number> {
  const mix: Record<string, number> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, weight = '1'] = part.split('=');
    if (!classes.includes(name as string)) throw new Error(`unknown noise class "${name}" (classes: ${classes.join(', ')})`);
    const w = Number(weight);
    if (!Number.isFinite(w) || w < 0) throw new Error(`weight of ${name} must be a number >= 0, got "${weight}"`);
    mix[name as string] = w;
  }
  return mix;
}

// ---- Text noise (pure helpers, exported for their unit test) --------------------------------------

export function stripAccents(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ø/g, 'o').replace(/Ø/g, 'O').replace(/ł/g, 'l').replace(/Ł/g, 'L').replace(/ß/g, 'ss');
}

export function normalizedName(text: string): string {
  return stripAccents(text).toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The key under which two names may be one person's: the given name without a middle name or
 * initial, a nickname folded to its (first) formal name, then normalizedName.
 */
export function nameKey(first: string, last: string): string {
  const given = normalizedName(givenName(first));
  const formal = FORMAL_OF.get(given)?.[0];
  return normalizedName(`${formal ?? given} ${last}`);
}

const KEYBOARD_NEIGHBOURS: Readonly<Record<string, string>> = {
  a: 'sqz', b: 'vn', c: 'xv', d: 'sf', e: 'wr', f: 'dg', g: 'fh', h: 'gj', i: 'uo', j: 'hk', k: 'jl', l: 'k', m: 'n',
  n: 'bm', o: 'ip', p: 'o', q: 'w', r: 'et', s: 'ad', t: 'ry', u: 'yi', v: 'cb', w: 'qe', x: 'zc', y: 'tu', z: 'x',
};

/** One typo in `word` (never its first letter): a neighbouring key, a dropped, doubled or swapped letter. */
export function typo(rng: Rng, word: string): string {
  if (word.length < 3) return word;
  const i = 1 + rng.int(word.length - 1);
  const ch = word[i] as string;
  switch (rng.int(4)) {
    case 0: {
      const near = KEYBOARD_NEIGHBOURS[ch.toLowerCase()];
      return near === undefined ? word.slice(0, i) + word.slice(i + 1) : word.slice(0, i) + rng.pick([...near]) + word.slice(i + 1);
    }
    case 1:
      return word.slice(0, i) + word.slice(i + 1);
    case 2:
      return word.slice(0, i) + ch + word.slice(i);
    default:
      return i + 1 < word.length ? word.slice(0, i) + word[i + 1] + ch + word.slice(i + 2) : word.slice(0, i - 1) + ch + word[i - 1];
  }
}

/** The first name without a middle name or initial ("Jane M." -> "Jane", "Jane Marie" -> "Jane"). */
export function givenName(first: string): string {
  return first.split(' ')[0] as string;
}

export { withoutLegalForm };

const ABBREVIATIONS: readonly (readonly [RegExp, string])[] = [
  [/\bTechnologies\b/, 'Tech'], [/\bInternational\b/, 'Intl'], [/\bCorporation\b/, 'Corp'], [/\bLaboratories\b/, 'Labs'],
  [/\bSolutions\b/, 'Sol.'], [/\bSystems\b/, 'Sys'], [/\bCommunications\b/, 'Comms'], [/\bManagement\b/, 'Mgmt'],
  [/\bFinancial\b/, 'Fin.'], [/\bInsurance\b/, 'Ins.'], [/ & /, ' and '], [/\bUniversity of\b/, 'Univ. of'],
  [/\bHealthcare\b/, 'HC'], [/\bInvestments\b/, 'Inv.'], [/\bConsulting\b/, 'Cons.'], [/\bCompany\b/, 'Co'],
];

/** An abbreviated company name, or undefined when nothing in it has a usual abbreviation. */
export function abbreviateCompany(rng: Rng, name: string): string | undefined {
  const applicable = ABBREVIATIONS.filter(([re]) => re.test(name));
  if (!applicable.length) return undefined;
  const [re, short] = rng.pick(applicable);
  return name.replace(re, short);
}

const TITLE_VARIANTS: readonly (readonly [RegExp, string])[] = [
  [/\bSenior\b/, 'Sr.'], [/\bJunior\b/, 'Jr.'], [/\bVice President\b/, 'VP'], [/\bManager\b/, 'Mgr'], [/\bDirector\b/, 'Dir.'],
  [/\bEngineer\b/, 'Eng.'], [/\bAssistant\b/, 'Asst.'], [/\bChief Executive Officer\b/, 'CEO'], [/\bChief Technology Officer\b/, 'CTO'],
  [/\bChief Financial Officer\b/, 'CFO'], [/\bChief Operating Officer\b/, 'COO'], [/\bDevelopment\b/, 'Dev'], [/\bMarketing\b/, 'Mktg'],
  [/\bAssociate\b/, 'Assoc.'], [/\bAdministrator\b/, 'Admin'], [/\bRepresentative\b/, 'Rep'], [/\bOperations\b/, 'Ops'],
];

/** The title as a list writes it: an abbreviation, else reworded into lower case. */
export function titleVariant(rng: Rng, title: string): string {
  const applicable = TITLE_VARIANTS.filter(([re]) => re.test(title));
  if (applicable.length) {
    const [re, short] = rng.pick(applicable);
    return title.replace(re, short);
  }
  return title.toLowerCase();
}

/** Letter case as lists mangle it: all upper, all lower, or each word capitalised. */
function mangleCase(rng: Rng, text: string): string {
  const k = rng.int(3);
  if (k === 0) return text.toUpperCase();
  if (k === 1) return text.toLowerCase();
  return text.toLowerCase().replace(/(^|\s)(\p{L})/gu, (_, s: string, c: string) => s + c.toUpperCase());
}

/** An e-mail local part from name pieces: ASCII, lower case, no spaces or apostrophes. */
function localPart(text: string): string {
  return stripAccents(text).toLowerCase().replace(/[^a-z0-9]+/g, '');
}

// ---- Person queries ------------------------------------------------------------------------------

interface PersonCtx {
  world: World;
  rng: Rng;
  stream: Stream;
  loaded: number;
  isTakenName?: (name: string) => boolean;
}

/** The name fields of a query: `name` (full) or first_name + last_name, half each. */
function nameFields(rng: Rng, first: string, last: string): PersonMatchQuery {
  return rng.chance(0.5) ? { name: `${first} ${last}` } : { first_name: first, last_name: last };
}

function companyIndexOf(world: World, p: PersonResult): number {
  return world.companyIndexOf({ companyId: p.current_company_id as string }) as number;
}

/** The domain the lake knows for company `index` (from its website), or undefined. */
function domainOf(company: CompanyResult): string | undefined {
  if (!company.website) return undefined;
  return new URL(company.website).hostname.replace(/^www\./, '');
}

const ATTEMPTS = 400;

/** A loaded person for which `make` gives a query (it returns undefined when the person does not fit). */
function fromPerson(c: PersonCtx, make: (p: PersonResult, index: number) => PersonMatchQuery | undefined): { query: PersonMatchQuery; expectedId: string; index: number } | undefined {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const index = c.rng.int(c.loaded);
    const p = c.world.person(index);
    const query = make(p, index);
    if (query !== undefined) return { query, expectedId: p.id, index };
  }
  return undefined;
}

/** Whether two words are one insertion, deletion or substitution apart. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * The name keys a loaded person who fits (first, last) through a nickname wears: nameKey folds a
 * nickname to its first formal name only, so "Alex Smith" (Alexander) and a stored "Alexandra
 * Smith", or "Alexandra Li" and a stored "Alex Li", have two keys. Every given name
 * that shares a formal name with `first` (the formal names and all their nicknames) gives its key.
 */
export function relatedNameKeys(first: string, last: string): Set<string> {
  const given = normalizedName(givenName(first));
  const formals = new Set([given, ...(FORMAL_OF.get(given) ?? []).map((f) => normalizedName(f))]);
  const keys = new Set<string>();
  for (const [formal, shorts] of Object.entries(NICKNAMES)) {
    // A formal name, or one spelled a letter apart (Abbigail, Abigail's: a stored Abby fits it).
    const f = normalizedName(formal);
    if (!formals.has(f) && !(given.length >= 5 && oneEditApart(given, f))) continue;
    keys.add(nameKey(formal, last));
    for (const short of shorts) keys.add(nameKey(short, last));
  }
  keys.add(nameKey(first, last));
  return keys;
}

const isTaken = (c: PersonCtx, first: string, last: string) => c.isTakenName !== undefined && [...relatedNameKeys(first, last)].some((k) => c.isTakenName!(k));

/** A made-up name for a person the lake does not hold: first and last name of two locales. */
function absentName(c: PersonCtx): { first: string; last: string } {
  for (let attempt = 0; ; attempt++) {
    const a = COUNTRIES[c.rng.int(COUNTRIES.length)] as Country;
    const b = COUNTRIES[c.rng.int(COUNTRIES.length)] as Country;
    const first = c.stream.faker(a.locale).person.firstName();
    const last = c.stream.faker(b.locale).person.lastName();
    if (attempt >= 50 || !isTaken(c, first, last)) return { first, last };
  }
}

type PersonMaker = (c: PersonCtx) => { query: PersonMatchQuery; expectedId: string | null; index?: number } | undefined;

const withCompany = (c: PersonCtx, first: string, last: string, company: string | null): PersonMatchQuery | undefined =>
  company ? { ...nameFields(c.rng, first, last), company } : undefined;

const PERSON_MAKERS: Record<Exclude<PersonNoise, 'ambiguous_rival'>, PersonMaker> = {
  exact: (c) => fromPerson(c, (p) => withCompany(c, p.first_name as string, p.last_name as string, p.current_company)),

  case_accents: (c) => fromPerson(c, (p) => {
    const fold = (s: string) => mangleCase(c.rng, stripAccents(s));
    return withCompany(c, fold(p.first_name as string), fold(p.last_name as string), c.rng.chance(0.5) ? fold(p.current_company as string) : p.current_company);
  }),

  nickname: (c) => fromPerson(c, (p) => {
    const given = givenName(p.first_name as string);
    const formal = FORMAL_OF.get(given.toLowerCase());
    const nicks = NICKNAMES[given];
    const other = formal !== undefined ? c.rng.pick(formal) : nicks !== undefined ? c.rng.pick(nicks) : undefined;
    return other === undefined ? undefined : withCompany(c, other, p.last_name as string, p.current_company);
  }),

  typo: (c) => fromPerson(c, (p) => {
    let first = givenName(p.first_name as string);
    let last = p.last_name as string;
    const typos = c.rng.chance(0.6) ? 1 : 2;
    for (let k = 0; k < typos; k++) {
      if (c.rng.chance(0.5) && last.length >= 4) last = typo(c.rng, last);
      else if (first.length >= 4) first = typo(c.rng, first);
      else last = typo(c.rng, last);
    }
    return withCompany(c, first, last, p.current_company);
  }),

  swapped_name: (c) => fromPerson(c, (p) => {
    const first = givenName(p.first_name as string);
    const last = p.last_name as string;
    // Either "Doe Jane" as one name, or the two fields filled the wrong way round.
    const names = c.rng.chance(0.5) ? { name: `${last} ${first}` } : { first_name: last, last_name: first };
    return p.current_company ? { ...names, company: p.current_company } : undefined;
  }),

  middle_name: (c) => fromPerson(c, (p) => {
    const first = p.first_name as string;
    const given = givenName(first);
    const middle = c.rng.pick(MIDDLE_NAMES);
    const withMiddle = first !== given ? given : c.rng.chance(0.5) ? `${given} ${middle.charAt(0)}.` : `${given} ${middle}`;
    return withCompany(c, withMiddle, p.last_name as string, p.current_company);
  }),

  company_legal_suffix: (c) => fromPerson(c, (p) => {
    const company = p.current_company as string;
    const bare = withoutLegalForm(company);
    const country = c.world.context.companySummary(companyIndexOf(c.world, p)).country.code;
    const forms = LEGAL_SUFFIXES[country] ?? (LEGAL_SUFFIXES.US as readonly string[]);
    let variant: string;
    const k = c.rng.int(3);
    if (k === 0) variant = bare !== company ? bare : `${bare} ${c.rng.pick(forms)}`;
    else if (k === 1) variant = `${bare}${c.rng.chance(0.5) ? ',' : ''} ${c.rng.pick([...forms, ...LEGAL_SUFFIXES.US!])}`;
    else variant = abbreviateCompany(c.rng, company) ?? `${bare} ${c.rng.pick(forms)}`;
    if (variant === company) variant = bare === company ? `${company} ${forms[0]}` : bare;
    return withCompany(c, p.first_name as string, p.last_name as string, variant);
  }),

  former_company: (c) => fromPerson(c, (p) => {
    const former = c.world.formerCompany(companyIndexOf(c.world, p));
    return former === undefined ? undefined : withCompany(c, p.first_name as string, p.last_name as string, former.name);
  }),

  previous_employer: (c) => fromPerson(c, (p) => {
    const past = p.positions.filter((q) => !q.isCurrent && q.companyName && q.companyName !== p.current_company);
    if (!past.length) return undefined;
    // Lists go stale by one job, more rarely two.
    const q = c.rng.chance(0.75) ? past[0]! : c.rng.pick(past);
    return withCompany(c, p.first_name as string, p.last_name as string, q.companyName);
  }),

  title_variant: (c) => fromPerson(c, (p) => {
    const q = withCompany(c, p.first_name as string, p.last_name as string, p.current_company);
    return q && p.current_title ? { ...q, title: titleVariant(c.rng, p.current_title) } : undefined;
  }),

  company_domain: (c) => fromPerson(c, (p) => {
    const company = c.world.company(companyIndexOf(c.world, p));
    const domain = domainOf(company);
    if (domain === undefined) return undefined;
    const value = c.rng.chance(0.5) ? domain : c.rng.chance(0.5) ? (company.website as string) : `http://${domain}/`;
    return { ...nameFields(c.rng, p.first_name as string, p.last_name as string), company_domain: value };
  }),

  email_first_last: (c) => fromPerson(c, (p) => {
    const domain = domainOf(c.world.company(companyIndexOf(c.world, p)));
    const sep = c.rng.pick(['.', '.', '.', '_', '']);
    return domain === undefined ? undefined : { email: `${localPart(givenName(p.first_name as string))}${sep}${localPart(p.last_name as string)}@${domain}` };
  }),

  email_initial_last: (c) => fromPerson(c, (p) => {
    const domain = domainOf(c.world.company(companyIndexOf(c.world, p)));
    return domain === undefined ? undefined : { email: `${localPart(givenName(p.first_name as string)).charAt(0)}${localPart(p.last_name as string)}@${domain}` };
  }),

  email_first: (c) => fromPerson(c, (p) => {
    const domain = domainOf(c.world.company(companyIndexOf(c.world, p)));
    if (domain === undefined) return undefined;
    return { ...nameFields(c.rng, p.first_name as string, p.last_name as string), email: `${localPart(givenName(p.first_name as string))}@${domain}` };
  }),

  location_city: (c) => fromPerson(c, (p) => {
    if (!p.geo_city) return undefined;
    const location = c.rng.chance(0.7) ? p.geo_city : `${p.geo_city}, ${p.geo_country_code}`;
    return { ...nameFields(c.rng, p.first_name as string, p.last_name as string), location };
  }),

  school: (c) => fromPerson(c, (p) => {
    if (!p.education_schools.length) return undefined;
    return { ...nameFields(c.rng, p.first_name as string, p.last_name as string), school: c.rng.pick(p.education_schools) };
  }),

  ambiguous_namesake: (c) => fromPerson(c, (p, index) => {
    if (!c.world.isNamesake(index)) return undefined;
    return withCompany(c, givenName(p.first_name as string), p.last_name as string, p.current_company);
  }),

  absent: (c) => {
    const { first, last } = absentName(c);
    const company = c.world.company(c.rng.int(c.world.companies));
    const domain = domainOf(company);
    if (domain !== undefined && c.rng.chance(0.3)) return { query: { email: `${localPart(first)}.${localPart(last)}@${domain}` }, expectedId: null };
    const query: PersonMatchQuery = { ...nameFields(c.rng, first, last), company: company.name as string };
    if (c.rng.chance(0.3)) query.title = 'Account Executive';
    return { query, expectedId: null };
  },

  absent_unloaded: (c) => {
    const { world, loaded } = c;
    if (loaded >= world.persons) return undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const index = loaded + c.rng.int(world.persons - loaded);
      // A namesake's twin may be in the lake: the query would fit a stored person as asked.
      if (world.isNamesake(index)) continue;
      const p = world.person(index);
      if (isTaken(c, p.first_name as string, p.last_name as string)) continue;
      const query = withCompany(c, p.first_name as string, p.last_name as string, p.current_company);
      if (query) return { query, expectedId: null };
    }
    return undefined;
  },
};

/** How many queries each class gets: `count` shared by weight, largest remainders first. */
function allocate(count: number, mix: Readonly<Record<string, number>>, classes: readonly string[]): Map<string, number> {
  const entries = classes.map((name) => [name, Math.max(0, mix[name] ?? 0)] as const).filter(([, w]) => w > 0);
  const total = entries.reduce((s, [, w]) => s + w, 0);
  if (total <= 0) throw new Error('the mix gives no class a weight');
  const out = new Map<string, number>();
  const rest: { name: string; frac: number }[] = [];
  let given = 0;
  for (const [name, w] of entries) {
    const exact = (count * w) / total;
    out.set(name, Math.floor(exact));
    given += Math.floor(exact);
    rest.push({ name, frac: exact - Math.floor(exact) });
  }
  rest.sort((a, b) => b.frac - a.frac);
  for (let k = 0; given < count; k++, given++) out.set(rest[k % rest.length]!.name, out.get(rest[k % rest.length]!.name)! + 1);
  return out;
}

/** Purpose tags of the query streams, apart from the world's (below 100) and the simulator's (101, 102). */
const PERSON_QUERY_PURPOSE = 200;
const COMPANY_QUERY_PURPOSE = 300;
const SHUFFLE_PURPOSE = 400;

function shuffle<T>(items: T[], key: number): T[] {
  const rng = new Rng();
  rng.reset(key, 0);
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Labelled person match queries (see the file comment). */
export function generateMatchQueries(world: World, options: MatchQueryOptions): LabelledQuery<PersonMatchQuery>[] {
  const classes = Object.keys(PERSON_MAKERS) as (keyof typeof PERSON_MAKERS)[];
  const mix = options.mix ?? DEFAULT_PERSON_MIX;
  const loaded = Math.min(options.loadedPersons ?? world.persons, world.persons);
  if (loaded <= 0) throw new Error('the lake holds no person of this world');
  const counts = allocate(options.count, mix, classes);
  const out: LabelledQuery<PersonMatchQuery>[] = [];
  const stream = new Stream();
  const ctx: PersonCtx = { world, rng: stream.rng, stream, loaded, isTakenName: options.isTakenName };
  classes.forEach((noise, c) => {
    const key = deriveKey(options.seed, PERSON_QUERY_PURPOSE + c);
    for (let k = 0; k < (counts.get(noise) ?? 0); k++) {
      stream.rng.reset(key, k);
      const made = PERSON_MAKERS[noise](ctx);
      if (made !== undefined) out.push({ query: made.query, expectedId: made.expectedId, noise, ...(made.index !== undefined ? { index: made.index } : {}) });
    }
  });
  return shuffle(out, deriveKey(options.seed, SHUFFLE_PURPOSE));
}

// ---- Person queries another loaded person fits as well ------------------------------------------

/**
 * What the ambiguity labelling reads of a loaded person: the world's record, or the same record
 * read back from the lake (bench:match, where regenerating 980,000 persons would take a quarter of
 * an hour). Company ids are the world's numeric company_id as text.
 */
export interface RivalPerson {
  id: string;
  first_name: string;
  last_name: string;
  current_company_id: string | null;
  /** The company ids of the past positions. */
  past_company_ids: readonly string[];
  current_title: string | null;
  geo_city: string | null;
  geo_country_code: string | null;
  education_schools: readonly string[];
}

export function rivalOf(p: PersonResult): RivalPerson {
  return {
    id: p.id,
    first_name: p.first_name as string,
    last_name: p.last_name as string,
    current_company_id: p.current_company_id ?? null,
    past_company_ids: p.positions.filter((q) => !q.isCurrent && q.companyId).map((q) => q.companyId as string),
    current_title: p.current_title ?? null,
    geo_city: p.geo_city ?? null,
    geo_country_code: p.geo_country_code ?? null,
    education_schools: p.education_schools,
  };
}

/** The key the rivals of a person are looked up by: their last name as an e-mail writes it (every rival shares it). */
export const rivalKey = (lastName: string) => localPart(lastName);

/** The given names a given name can stand for: itself and the formal names of a nickname (lower case, accents dropped). */
function givenForms(given: string): Set<string> {
  const g = normalizedName(given);
  return new Set([g, ...(FORMAL_OF.get(g) ?? []).map((f) => normalizedName(f))]);
}

/**
 * How well a name as asked (first, last) fits a profile's name, from the name alone:
 * 4 the same once case, accents and punctuation are dropped; 3 the same given and last name, a
 * middle name or initial on one side only; 2 the same, but the middle names differ; 1 the given
 * names are one through a nickname (Dave / David); 0 otherwise (another last name or given name).
 */
export function nameFit(first: string, last: string, profileFirst: string, profileLast: string): number {
  if (normalizedName(last) !== normalizedName(profileLast)) return 0;
  if (normalizedName(first) === normalizedName(profileFirst)) return 4;
  const given = givenName(first);
  const profileGiven = givenName(profileFirst);
  if (normalizedName(given) === normalizedName(profileGiven)) {
    const middle = normalizedName(first.slice(given.length));
    const profileMiddle = normalizedName(profileFirst.slice(profileGiven.length));
    return !middle || !profileMiddle || middle.charAt(0) === profileMiddle.charAt(0) ? 3 : 2;
  }
  const forms = givenForms(given);
  for (const f of givenForms(profileGiven)) if (forms.has(f)) return 1;
  return 0;
}

/** The world's company ids by current name key and by former name key (once per world). */
const companyIdsByNameOf = new WeakMap<World, { current: Map<string, string[]>; former: Map<string, string[]> }>();

/** The world's company ids whose current (or, with `former`, former) name key is one of `keys`. */
function companyIdsNamed(world: World, keys: ReadonlySet<string>, former: boolean): Set<string> {
  let byName = companyIdsByNameOf.get(world);
  if (byName === undefined) {
    byName = { current: new Map(), former: new Map() };
    const add = (map: Map<string, string[]>, key: string, id: string) => {
      const list = map.get(key);
      if (list === undefined) map.set(key, [id]);
      else list.push(id);
    };
    for (let i = 0; i < world.companies; i++) {
      const s = world.context.companySummary(i);
      add(byName.current, companyNameKey(s.name), s.companyId);
      if (s.formerName !== null) add(byName.former, companyNameKey(s.formerName), s.companyId);
    }
    companyIdsByNameOf.set(world, byName);
  }
  const ids = new Set<string>();
  for (const key of keys) {
    for (const id of byName.current.get(key) ?? []) ids.add(id);
    if (former) for (const id of byName.former.get(key) ?? []) ids.add(id);
  }
  return ids;
}

const norm = (x: string | null | undefined) => normalizedName(x ?? '');

/**
 * The loaded persons other than the query's own who fit person query `q` as well as that person does
 * (`candidates`: at least every loaded person of the target's rival key; others are ignored):
 * - the employer as the query names it: for a company name, every company of the world with that
 *   name key (or the target employer's own: an abbreviation) now, and for `former_company` before;
 *   for a domain or a work e-mail, the target's employer (domains are never shared). A rival works
 *   there now; for `previous_employer` (the name of a past employer) now or before;
 * - `location_city` and `school` name no employer: a rival lives in the city (the country too when
 *   asked) or went to the school;
 * - the name: nameFit of the name as the query means it (the typo and the swap undone, the
 *   nickname as asked, the middle name as asked) at least the target's; for an e-mail, the same
 *   local part (the given name and last name, or the initial and last name);
 * - a title asked (`title_variant`): the same current title.
 * Whatever the query can tell apart (another first name, a conflicting middle name, another title,
 * city or school, a former employer where the query names the current one) is not a rival.
 */
export function rivalsOf(world: World, q: LabelledQuery<PersonMatchQuery>, target: PersonResult, candidates: readonly RivalPerson[]): RivalPerson[] {
  const noise = q.madeAs ?? q.noise;
  const first = target.first_name as string;
  const last = target.last_name as string;
  const given = givenName(first);
  const employerId = target.current_company_id ?? null;
  // The name as the query means it.
  let asked: { first: string; last: string } | undefined;
  let email: ((r: RivalPerson) => boolean) | undefined;
  switch (noise) {
    case 'typo':
    case 'swapped_name':
      asked = { first: given, last };
      break;
    case 'nickname':
    case 'middle_name': {
      // The query's own first name (a nickname, or a middle name added or dropped).
      const text = q.query.first_name ?? (q.query.name as string).slice(0, (q.query.name as string).length - last.length - 1);
      asked = { first: text, last };
      break;
    }
    case 'email_first_last':
      email = (r) => localPart(givenName(r.first_name)) === localPart(given) && localPart(r.last_name) === localPart(last);
      break;
    case 'email_initial_last':
      email = (r) => localPart(givenName(r.first_name)).charAt(0) === localPart(given).charAt(0) && localPart(r.last_name) === localPart(last);
      break;
    case 'email_first':
      asked = { first, last };
      email = (r) => localPart(givenName(r.first_name)) === localPart(given);
      break;
    default:
      asked = { first, last };
  }
  const targetFit = asked === undefined ? 0 : nameFit(asked.first, asked.last, first, last);
  const nameFits = (r: RivalPerson) => (asked === undefined || nameFit(asked.first, asked.last, r.first_name, r.last_name) >= targetFit) && (email === undefined || email(r));
  // Where a rival must be.
  let at: (r: RivalPerson) => boolean;
  if (noise === 'location_city') {
    const withCountry = (q.query.location ?? '').includes(',');
    at = (r) => norm(r.geo_city) === norm(target.geo_city) && (!withCountry || r.geo_country_code === target.geo_country_code);
  } else if (noise === 'school') {
    at = (r) => r.education_schools.some((x) => norm(x) === norm(q.query.school));
  } else if (q.query.company !== undefined) {
    const keys = new Set([companyNameKey(q.query.company)]);
    const employer = world.companyIndexOf({ companyId: (noise === 'previous_employer' ? undefined : employerId) ?? '' });
    if (employer !== undefined) keys.add(companyNameKey(world.context.companySummary(employer).name));
    const ids = companyIdsNamed(world, keys, noise === 'former_company' || noise === 'previous_employer');
    at = noise === 'previous_employer'
      ? (r) => (r.current_company_id !== null && ids.has(r.current_company_id)) || r.past_company_ids.some((id) => ids.has(id))
      : (r) => r.current_company_id !== null && ids.has(r.current_company_id);
  } else {
    at = (r) => r.current_company_id !== null && r.current_company_id === employerId;
  }
  const title = noise === 'title_variant' ? norm(target.current_title) : undefined;
  return candidates.filter((r) => r.id !== target.id && at(r) && nameFits(r) && (title === undefined || norm(r.current_title) === title));
}

/** The rival keys (rivalKey) of the persons the queries were made from: what `labelAmbiguousPersons` will look up. */
export function rivalKeysOf(world: World, queries: readonly LabelledQuery<PersonMatchQuery>[]): Set<string> {
  const keys = new Set<string>();
  for (const q of queries) if (q.index !== undefined) keys.add(rivalKey(world.person(q.index).last_name as string));
  return keys;
}

/**
 * Relabels `ambiguous_rival` (madeAs: its class) every query made from a loaded person whom another
 * loaded person fits as well (rivalsOf). `lookup(key)`: the loaded persons of a rival key (all of
 * them; the world's records or the lake's). Queries with no record (absent people) and the
 * designated namesakes (already `ambiguous_namesake`) are left as they are.
 */
export function labelAmbiguousPersons(
  world: World, queries: readonly LabelledQuery<PersonMatchQuery>[], lookup: (key: string) => readonly RivalPerson[],
): LabelledQuery<PersonMatchQuery>[] {
  return queries.map((q) => {
    if (q.index === undefined || PERSON_NOISE[q.noise as PersonNoise] === 'ambiguous') return q;
    const target = world.person(q.index);
    const rivals = rivalsOf(world, q, target, lookup(rivalKey(target.last_name as string)));
    return rivals.length ? { ...q, noise: 'ambiguous_rival', madeAs: q.noise } : q;
  });
}

// ---- Company queries -----------------------------------------------------------------------------

type CompanyMaker = (world: World, rng: Rng, stream: Stream) => { query: CompanyMatchQuery; expectedId: string | null; index?: number } | undefined;

/** The key under which two company names are one (legal form, case, accents and punctuation dropped). */
/**
 * A company name without its legal form, folded. The legal form is taken off before a trailing
 * full stop or comma is: most forms end in one ("Co.", "Corp.", "S.A."), and taking the stop off
 * first left "Ferry Consulting, Co." a name apart from "Ferry Consulting Corp." (a query that fits
 * both was labelled as fitting one).
 */
export const companyNameKey = (name: string) => {
  const trimmed = name.trim();
  const bare = withoutLegalForm(trimmed);
  return normalizedName(bare !== trimmed ? bare : withoutLegalForm(trimmed.replace(/[.,]+$/, '')));
};

/** How many companies of the world wear each name key: current names, with the city; former names. */
interface CompanyNames {
  current: Map<string, number>;
  currentInCity: Map<string, number>;
  former: Map<string, number>;
}

const companyNamesOf = new WeakMap<World, CompanyNames>();

function companyNames(world: World): CompanyNames {
  let names = companyNamesOf.get(world);
  if (names !== undefined) return names;
  names = { current: new Map(), currentInCity: new Map(), former: new Map() };
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (let i = 0; i < world.companies; i++) {
    const s = world.context.companySummary(i);
    const key = companyNameKey(s.name);
    add(names.current, key);
    add(names.currentInCity, `${key}|${normalizedName(s.city.name)}`);
    if (s.formerName !== null) add(names.former, companyNameKey(s.formerName));
  }
  companyNamesOf.set(world, names);
  return names;
}

/**
 * Whether another company of the world fits a name query made from company `index` as well as that
 * company does (COMPANY_NOISE.ambiguous_name). Domains are never shared (World.companySummary).
 */
export function isAmbiguousCompanyQuery(world: World, index: number, noise: CompanyNoise, query: CompanyMatchQuery): boolean {
  if (query.name === undefined) return false;
  const names = companyNames(world);
  const s = world.context.companySummary(index);
  const own = companyNameKey(s.name);
  const asked = companyNameKey(query.name);
  if (noise === 'former_name') {
    // The company itself was named so before; anyone else named so now or before is a rival.
    return (names.current.get(asked) ?? 0) + (names.former.get(asked) ?? 0) > 1;
  }
  const keys = new Set([own, asked]);
  if (noise === 'name_location') {
    const city = normalizedName(s.city.name);
    return [...keys].some((k) => (names.currentInCity.get(`${k}|${city}`) ?? 0) > (k === own ? 1 : 0));
  }
  // A rival is another company whose name is the one asked for (or this company's), or was.
  const ownFormer = s.formerName === null ? null : companyNameKey(s.formerName);
  return [...keys].some((k) => (names.current.get(k) ?? 0) > (k === own ? 1 : 0) || (names.former.get(k) ?? 0) > (k === ownFormer ? 1 : 0));
}

function fromCompany(world: World, rng: Rng, make: (company: CompanyResult, index: number) => CompanyMatchQuery | undefined) {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const index = rng.int(world.companies);
    const company = world.company(index);
    const query = make(company, index);
    if (query !== undefined) return { query, expectedId: company.id, index };
  }
  return undefined;
}

const COMPANY_MAKERS: Record<Exclude<CompanyNoise, 'ambiguous_name'>, CompanyMaker> = {
  exact_name: (w, rng) => fromCompany(w, rng, (co) => ({ name: co.name as string })),
  legal_suffix: (w, rng) => fromCompany(w, rng, (co) => {
    const name = co.name as string;
    const bare = withoutLegalForm(name);
    const forms = LEGAL_SUFFIXES[co.hq_country_code as string] ?? (LEGAL_SUFFIXES.US as readonly string[]);
    const variant = bare !== name && rng.chance(0.5) ? bare : `${bare}${rng.chance(0.3) ? ',' : ''} ${rng.pick(forms)}`;
    return { name: variant === name ? bare : variant };
  }),
  case_punctuation: (w, rng) => fromCompany(w, rng, (co) => {
    const name = (co.name as string).replace(/[.,]/g, '');
    return { name: rng.chance(0.5) ? name.toUpperCase() : `${name.toLowerCase()}${rng.chance(0.5) ? '.' : ''}` };
  }),
  abbreviation: (w, rng) => fromCompany(w, rng, (co) => {
    const short = abbreviateCompany(rng, co.name as string);
    return short === undefined ? undefined : { name: short };
  }),
  former_name: (w, rng) => fromCompany(w, rng, (_co, index) => {
    const former = w.formerCompany(index);
    return former === undefined ? undefined : { name: former.name as string };
  }),
  name_location: (w, rng) => fromCompany(w, rng, (co) => (co.hq_city ? { name: co.name as string, location: rng.chance(0.6) ? co.hq_city : `${co.hq_city}, ${co.hq_country}` } : undefined)),
  domain: (w, rng) => fromCompany(w, rng, (co) => {
    const domain = domainOf(co);
    return domain === undefined ? undefined : { domain };
  }),
  website_url: (w, rng) => fromCompany(w, rng, (co) => {
    const domain = domainOf(co);
    return domain === undefined ? undefined : { domain: `${rng.pick(['https://www.', 'http://', 'https://'])}${domain}${rng.pick(['', '/', '/about', '/contact-us'])}` };
  }),
  email_domain: (w, rng) => fromCompany(w, rng, (co) => {
    const domain = domainOf(co);
    return domain === undefined ? undefined : { email: `${rng.pick(['info', 'sales', 'jane.doe', 'hello', 'j.smith'])}@${domain}` };
  }),
  absent: (w, rng, stream) => {
    // A name and a domain no company of the world has: a made-up stem no locale writes that way.
    const stem = `${stream.faker().word.adjective()}${stream.faker().word.noun()}`.replace(/[^a-z]/gi, '');
    const name = `${stem.charAt(0).toUpperCase()}${stem.slice(1)} ${rng.pick(['Dynamics', 'Works', 'Collective', 'Ventures'])}`;
    return rng.chance(0.5) ? { query: { name }, expectedId: null } : { query: { domain: `${stem.toLowerCase()}-${rng.range(10, 99)}.io` }, expectedId: null };
  },
};

/** Labelled company match queries (companies are all in the lake; absent ones are made up). */
export function generateCompanyMatchQueries(world: World, options: Omit<MatchQueryOptions, 'loadedPersons' | 'isTakenName'>): LabelledQuery<CompanyMatchQuery>[] {
  const classes = Object.keys(COMPANY_MAKERS) as (keyof typeof COMPANY_MAKERS)[];
  const counts = allocate(options.count, options.mix ?? DEFAULT_COMPANY_MIX, classes);
  const out: LabelledQuery<CompanyMatchQuery>[] = [];
  const stream = new Stream();
  classes.forEach((noise, c) => {
    const key = deriveKey(options.seed, COMPANY_QUERY_PURPOSE + c);
    for (let k = 0; k < (counts.get(noise) ?? 0); k++) {
      stream.rng.reset(key, k);
      const made = COMPANY_MAKERS[noise](world, stream.rng, stream);
      if (made === undefined) continue;
      const ambiguous = made.index !== undefined && isAmbiguousCompanyQuery(world, made.index, noise, made.query);
      out.push({ query: made.query, expectedId: made.expectedId, noise: ambiguous ? 'ambiguous_name' : noise });
    }
  });
  return shuffle(out, deriveKey(options.seed, SHUFFLE_PURPOSE + 1));
}

