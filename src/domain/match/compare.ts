/**
 * Stage 3 of matching: each input field against the record, into a level (exact, nickname, close,
 * partial, former, different, missing_in_record). Pure functions; the comparison vector is what the
 * caller sees as evidence. String distances: Jaro-Winkler (talisman) for names, which weighs the
 * first letters as typing errors do, and Levenshtein (fastest-levenshtein) to bound a typo count.
 */
import { distance } from 'fastest-levenshtein';
import jaroWinkler from 'talisman/metrics/jaro-winkler';
import {
  companyKey, fold, isGivenName, isNickname, localWords, recordName, titleWords, words, type Email, type PersonName,
} from './normalize';

export type Level = 'exact' | 'nickname' | 'close' | 'partial' | 'former' | 'different' | 'missing_in_record';
export type PersonField = 'name' | 'company' | 'company_domain' | 'company_id' | 'email' | 'title' | 'location' | 'school' | 'identifier';
export type CompanyField = 'name' | 'domain' | 'location' | 'identifier';

export interface Comparison<F extends string = PersonField | CompanyField> {
  field: F;
  level: Level;
  input: string | null;
  record: string | null;
}

/** A person query after normalisation (person.ts builds it from the request). */
export interface PersonQuery {
  name: PersonName | null;
  /** companyKey of the employer's name. */
  company: string | null;
  /** Registrable domain of the employer's website. */
  companyDomain: string | null;
  companyId: string | null;
  email: Email | null;
  title: string | null;
  location: { folded: string; countryCode: string | null } | null;
  school: string | null;
}

/** Company IDs the query's employer fields point at, resolved in the lake by candidate search. */
export interface ResolvedEmployers {
  /** By the company name: current names, and former names (renames). */
  byName: ReadonlySet<string>;
  byFormerName: ReadonlySet<string>;
  /** By the company domain, else the email's domain. */
  byDomain: ReadonlySet<string>;
}

/** The part of a person record matching reads. */
export interface PersonCandidate {
  id: string;
  full_name: string;
  first_name: string | null;
  last_name: string | null;
  current_company: string | null;
  current_company_id: string | null;
  current_title: string | null;
  geo_city: string | null;
  geo_country: string | null;
  geo_country_code: string | null;
  education_schools: string[] | null;
  positions: { companyName?: string | null; companyId?: string | null; isCurrent?: boolean | null; title?: string | null; location?: string | null }[] | null;
}

export const similar = (a: string, b: string): number => (a === '' || b === '' ? 0 : jaroWinkler(a, b));

/**
 * Within a typo or two, for words long enough that two edits do not make another word. `bounded`:
 * Jaro-Winkler rewards a shared start, so without a length bound a name and a longer one it begins
 * (Shreya / Shreyashi: 0.93) would pass as a typo; a typo or two changes the length by two at most.
 * Company names are not bounded: a longer name that shares most of its start ("Acme Analytics" /
 * "Acme Analytic Partners") is a similar company that a review screen should still see.
 */
function typo(a: string, b: string, bounded = true, twoFrom = 7): boolean {
  if (a === b) return true;
  const d = edits(a, b);
  const n = Math.max(a.length, b.length);
  return n >= 4 && (d === 1 || (d === 2 && n >= twoFrom)) || (n >= 4 && (!bounded || Math.abs(a.length - b.length) <= 2) && similar(a, b) >= 0.93);
}

/**
 * Typing errors between two words: the Levenshtein distance, with two neighbouring letters swapped
 * counted as one error (the optimal string alignment distance; "Nick" / "Ncik" is one slip of the
 * fingers, Levenshtein counts two). Computed only when Levenshtein says 2 or 3, where a swap can lower it.
 */
export function edits(a: string, b: string): number {
  const d = distance(a, b);
  return d === 2 || d === 3 ? Math.min(d, osa(a, b)) : d;
}

function osa(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = new Array<number>(n + 1);
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

const sameLast = (q: string, r: string) => q === r || r.split(' ').includes(q) || q.split(' ').includes(r) || q.replace(/ /g, '') === r.replace(/ /g, '');

/** Two distinct first names that are both known given names (and not nicknames of one another). */
const otherGivenNames = (a: string, b: string) => a !== b && isGivenName(a) && isGivenName(b);

/**
 * The first name against the record's. `lastAgrees`: the last name agrees as written, so two typos
 * in a first name of five letters or more that is no known name are still within reach (the last
 * name, spelt right, has already narrowed the candidates to one family name; elsewhere two typos
 * need seven letters).
 */
function firstLevel(q: string | null, r: string | null, middle: string[], lastAgrees = false): 'exact' | 'nickname' | 'close' | 'different' | 'missing' {
  if (!q || !r) return 'missing';
  const rf = r.split(' ')[0]!;
  if (q === r || q === rf) return 'exact';
  if (isNickname(q, rf)) return 'nickname';
  // An initial ("J. Doe"), or a middle name used as the first ("Q. Jane Doe" kept as Jane).
  if (q.length === 1 && rf.startsWith(q)) return 'nickname';
  if (middle.includes(rf)) return 'nickname';
  // A short form the nickname table does not know ("Nik" for Nikolai, "Rob" for Robinson): 3 or 4
  // letters. A longer prefix is a name of its own (Shreya / Shreyashi, Christian / Christiansen).
  const short = Math.min(q.length, rf.length);
  if (short >= 3 && short <= 4 && (q.startsWith(rf) || rf.startsWith(q))) return 'close';
  // Two names of their own (Gina / Gino, Mark / Mary, Dina / Dana, Robert / Roberta) are not a typo
  // of one another but another first name, so another person: a typo mostly makes a non-name.
  if (otherGivenNames(q, rf)) return 'different';
  // Two typos in five or six letters only for a first name that is no name at all (Setphaby): a
  // known name asked for (Karen) is that name, and Kavon, two letters off, is someone else.
  if (typo(q, rf, true, lastAgrees && q[0] === rf[0] && !isGivenName(q) ? 5 : 7)) return 'close';
  return 'different';
}

export function compareName(q: PersonName, rec: PersonCandidate): Comparison<'name'> {
  const r = recordName(rec);
  const input = [q.first, q.last].filter(Boolean).join(' ');
  const record = [r.first, r.last].filter(Boolean).join(' ') || fold(rec.full_name);
  const out = (level: Level): Comparison<'name'> => ({ field: 'name', level, input, record });
  if (!q.last && !q.first) return out('missing_in_record');
  if (!r.last && !r.first) return out('missing_in_record');
  const qLast = q.last ?? '';
  const rLast = r.last ?? '';
  // A swapped first and last name: compare the other way round.
  const swapped = q.first && q.last && r.first && r.last && sameLast(q.first, rLast) && firstLevel(q.last, r.first, []) === 'exact';
  if (swapped) return out('exact');
  const lastAgrees = qLast !== '' && rLast !== '' && sameLast(qLast, rLast);
  const lastClose = !lastAgrees && qLast !== '' && rLast !== '' && typo(qLast.replace(/ /g, ''), rLast.replace(/ /g, ''));
  const first = firstLevel(q.first, r.first, [...r.middle, ...q.middle], lastAgrees);
  if (lastAgrees) {
    if (first === 'exact') return out('exact');
    if (first === 'nickname') return out('nickname');
    if (first === 'close') return out('close');
    return out('partial');
  }
  if (lastClose && (first === 'exact' || first === 'nickname' || first === 'close')) return out('close');
  // Typos across the whole name: up to two edits (a swap of neighbouring letters is one), three in a long name.
  // The query's words joined whole as well: a typo may move a space ("Isa deB oer" for Isa de Boer),
  // and a name parser then cuts the words elsewhere.
  const otherFirst = q.first !== null && r.first !== null && otherGivenNames(q.first, r.first.split(' ')[0]!);
  const rFull = `${r.first ?? ''}${rLast}`.replace(/ /g, '');
  for (const qFull of new Set([`${q.first ?? ''}${qLast}`.replace(/ /g, ''), q.tokens.join('')])) {
    const e = edits(qFull, rFull);
    if (!otherFirst && qFull.length >= 8 && (e <= 2 || (e <= 3 && qFull.length >= 11)) && similar(qFull, rFull) >= 0.88) return out('close');
  }
  if (!q.first && q.last && r.first && sameLast(q.last, r.first)) return out('partial');
  return out('different');
}

/** The email's local part against the record's name (jane.doe, jdoe, doej, jane, jane.d, doe). */
export function compareEmailLocal(email: Email, rec: PersonCandidate): Comparison<'email'> {
  const r = recordName(rec);
  const input = email.local;
  const record = [r.first, r.last].filter(Boolean).join(' ');
  const out = (level: Level): Comparison<'email'> => ({ field: 'email', level, input, record: record || null });
  if (!r.first && !r.last) return out('missing_in_record');
  const local = fold(email.local).replace(/ /g, '');
  const f = (r.first ?? '').replace(/ /g, '');
  const l = (r.last ?? '').replace(/ /g, '');
  const lastWord = (r.last ?? '').split(' ').pop() ?? '';
  const patterns = (first: string) =>
    first === ''
      ? [l]
      : [first + l, first[0] + l, l + first, l + first[0], first + l[0], first[0] + lastWord, first + lastWord, lastWord + first, first[0]! + (r.middle[0]?.[0] ?? '') + l];
  if (patterns(f).includes(local)) return out('exact');
  const lw = localWords(email.local);
  if (lw.length >= 2 && f && sameLast(lw[lw.length - 1]!, r.last ?? '') && lw[0] === f) return out('exact');
  // A nickname as the first part (bob.smith for Robert Smith), or as the whole local part with the last name.
  if (lw.length >= 1 && f !== '' && isNickname(lw[0]!, f) && (lw.length === 1 || sameLast(lw[lw.length - 1]!, r.last ?? ''))) return out('nickname');
  if (local === f || local === l || local === lastWord) return out('partial');
  if (f && l && typo(local, f + l)) return out('close');
  return out('different');
}

function positionsOf(rec: PersonCandidate) {
  return (rec.positions ?? []).filter((p) => p && (p.companyName || p.companyId));
}

/** The employer's name: the current one, else a previous one or a former name of the current one. */
export function compareCompany(input: string, rec: PersonCandidate, resolved: ResolvedEmployers): Comparison<'company'> {
  const current = rec.current_company ? companyKey(rec.current_company) : null;
  const out = (level: Level, record: string | null = current): Comparison<'company'> => ({ field: 'company', level, input, record });
  const positions = positionsOf(rec);
  if (!current && positions.length === 0) return out('missing_in_record');
  if (current !== null && current === input) return out('exact');
  if (rec.current_company_id && resolved.byName.has(rec.current_company_id)) return out('exact');
  if (rec.current_company_id && resolved.byFormerName.has(rec.current_company_id)) return out('former');
  if (current !== null && closeCompany(input, current)) return out('close');
  for (const p of positions) {
    if (p.isCurrent) continue;
    const key = p.companyName ? companyKey(p.companyName) : null;
    if ((key !== null && (key === input || closeCompany(input, key))) || (p.companyId && (resolved.byName.has(p.companyId) || resolved.byFormerName.has(p.companyId)))) {
      return out('former', key);
    }
  }
  return out('different');
}

/**
 * Similar company names: a typo, the same letters spaced otherwise, or one name the other's first
 * words ("vandelay" ~ "vandelay industries": lists shorten names). Rival companies that share the
 * first word are then told apart by the rest of the evidence and by the likelihood's sharing.
 */
export function closeCompany(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.replace(/ /g, '') === b.replace(/ /g, '')) return true;
  if (typo(a, b, false)) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(`${short} `);
}

/** An employer given by ID or domain (resolved to IDs): current, previous or neither. */
export function compareEmployerIds(
  field: 'company_id' | 'company_domain',
  input: string,
  ids: ReadonlySet<string>,
  rec: PersonCandidate,
  recordValue: string | null,
): Comparison<'company_id' | 'company_domain'> {
  const out = (level: Level, record: string | null = recordValue): Comparison<'company_id' | 'company_domain'> => ({ field, level, input, record });
  const positions = positionsOf(rec);
  if (!rec.current_company_id && positions.length === 0) return out('missing_in_record', null);
  if (rec.current_company_id && ids.has(rec.current_company_id)) return out('exact');
  if (positions.some((p) => !p.isCurrent && p.companyId && ids.has(p.companyId))) return out('former');
  // A domain the lake has no company for: its name against the employer's ("acme.com" ~ Acme Inc.).
  if (field === 'company_domain' && ids.size === 0 && rec.current_company) {
    const label = input.split('.')[0]!.replace(/-/g, '');
    const current = companyKey(rec.current_company).replace(/ /g, '');
    if (label === current) return out('close');
  }
  return out('different');
}

/** Titles: the same words (abbreviations spelt out), most of them, or different. */
export function compareTitle(input: string, rec: PersonCandidate): Comparison<'title'> {
  const q = titleWords(input);
  const record = rec.current_title;
  const out = (level: Level): Comparison<'title'> => ({ field: 'title', level, input: q.join(' '), record: record === null ? null : titleWords(record).join(' ') });
  if (!record) return out('missing_in_record');
  const r = titleWords(record);
  const qs = new Set(q);
  const rs = new Set(r);
  if (qs.size === rs.size && [...qs].every((w) => rs.has(w))) return out('exact');
  const common = [...qs].filter((w) => rs.has(w)).length;
  const jaccard = common / new Set([...qs, ...rs]).size;
  if (jaccard >= 0.5) return out('close');
  if (common > 0) return out('partial');
  return out('different');
}

/** A place: the city, the region, the country (name or code) of the record. */
export function comparePlace<F extends 'location'>(
  field: F,
  input: { folded: string; countryCode: string | null },
  place: { city: string | null; region: string | null; country: string | null; countryCode: string | null },
): Comparison<F> {
  const record = [place.city, place.region, place.country].filter(Boolean).join(', ') || place.countryCode;
  const out = (level: Level): Comparison<F> => ({ field, level, input: input.folded, record: record ? fold(record) : null });
  if (!place.city && !place.country && !place.countryCode) return out('missing_in_record');
  const parts = input.folded === '' ? [] : [input.folded, ...input.folded.split(' ')];
  const city = place.city ? fold(place.city) : null;
  const region = place.region ? fold(place.region) : null;
  const country = place.country ? fold(place.country) : null;
  const code = place.countryCode?.toLowerCase() ?? null;
  if (city && (input.folded === city || input.folded.startsWith(`${city} `))) return out('exact');
  if (region && input.folded === region) return out('exact');
  if ((country && input.folded === country) || (code && input.countryCode === code)) return out('exact');
  if (city && typo(input.folded, city)) return out('close');
  if (parts.some((p) => p === city || p === region || p === country || p === code)) return out('partial');
  return out('different');
}

/** The person's place: city and country from the record, the region from the current position's location. */
export function personPlace(rec: PersonCandidate) {
  const location = (rec.positions ?? []).find((p) => p?.isCurrent)?.location ?? null;
  const parts = location ? location.split(',').map((s) => s.trim()) : [];
  const region = parts.length >= 3 ? parts[parts.length - 2]! : null;
  return { city: rec.geo_city, region, country: rec.geo_country, countryCode: rec.geo_country_code };
}

/** A school of the record's education history. */
export function compareSchool(input: string, rec: PersonCandidate): Comparison<'school'> {
  const schools = (rec.education_schools ?? []).filter(Boolean);
  const out = (level: Level, record: string | null): Comparison<'school'> => ({ field: 'school', level, input, record });
  if (schools.length === 0) return out('missing_in_record', null);
  let best: { level: Level; record: string } | null = null;
  for (const s of schools) {
    const key = companyKey(s);
    if (key === input) return out('exact', key);
    const w = new Set(words(key));
    const qw = words(input);
    const overlap = qw.filter((x) => w.has(x)).length / Math.max(qw.length, w.size);
    if (typo(input, key) || overlap >= 0.6) best = { level: 'close', record: key };
  }
  return best ? out(best.level, best.record) : out('different', companyKey(schools[0]!));
}

/** Every comparison of a person query against one candidate, in the order of the fields. */
export function comparePerson(q: PersonQuery, rec: PersonCandidate, resolved: ResolvedEmployers): Comparison<PersonField>[] {
  const out: Comparison<PersonField>[] = [];
  if (q.name) out.push(compareName(q.name, rec));
  if (q.company) out.push(compareCompany(q.company, rec, resolved));
  if (q.companyId) out.push(compareEmployerIds('company_id', q.companyId, new Set([q.companyId]), rec, rec.current_company_id));
  // The employer's domain once: the company_domain field, else the email's (not a free mail domain).
  const domain = q.companyDomain ?? (q.email && !q.email.freeMail ? q.email.domain : null);
  if (domain) out.push(compareEmployerIds('company_domain', domain, resolved.byDomain, rec, rec.current_company ? companyKey(rec.current_company) : null));
  if (q.email) out.push(compareEmailLocal(q.email, rec));
  if (q.title) out.push(compareTitle(q.title, rec));
  if (q.location) out.push(comparePlace('location', q.location, personPlace(rec)));
  if (q.school) out.push(compareSchool(q.school, rec));
  return out;
}
